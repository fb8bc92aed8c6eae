"""JSON from outside, read as hostile: capped in size and nesting before it is parsed, strict UTF-8, and
integers too long for a float turned into an infinity the caller's checks then name (docs/reliability.md).

The standard parser recurses once per level of nesting (a file of a few thousand "[" is a RecursionError)
and turns a 400-digit integer into a Python int that overflows float(); both are checked here first.
"""

from __future__ import annotations

import json

import numpy as np

from .errors import TrackFormatError

MAX_JSON_BYTES = 64 * 2**20  # a 100,000-footprint track is about 15 MB; a motion at 60 fps, 1.5 MB a minute
MAX_MOTION_BYTES = 1024 * 2**20  # a motion of the longest track the solver samples (MAX_FRAMES)
MAX_JSON_DEPTH = 32  # our formats nest at most 5 deep (a height field's rows inside the terrain)
_BRACKET_STEP = np.zeros(256, dtype=np.int8)  # by byte: +1 opens an array or object, -1 closes one
_BRACKET_STEP[[ord("["), ord("{")]], _BRACKET_STEP[[ord("]"), ord("}")]] = 1, -1
_INT_DIGITS = 18  # up to here an int is exact; longer ones become floats (inf past 1e308)


def is_number(value) -> bool:
    """A JSON number: an int or a float, not a bool (which Python counts as an int) nor a string of digits."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class JsonInputError(TrackFormatError):
    """A JSON input that cannot be read: too large, too deep, not UTF-8, or malformed. Names the source."""


def read_text(path, limit: int = MAX_JSON_BYTES, what: str = "file") -> str:
    """A text file's content, refusing files larger than limit bytes without reading past it (so /dev/zero
    or a runaway file is an error, not an exhausted memory)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise JsonInputError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise JsonInputError(f"{path}: the {what} is larger than the limit of {limit // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"{path}: the {what} is not UTF-8 text (byte {exc.start})") from None


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest, strings' contents aside: vectorised passes, no recursion. Escaped
    backslashes and quotes are dropped first (str.replace, in C), so every quote left opens or closes a
    string and the brackets inside strings are those after an odd number of quotes."""
    if "\\" in text:
        text = text.replace("\\\\", "").replace('\\"', "")
    codes = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    in_string = np.bitwise_xor.accumulate((codes == ord('"')).view(np.uint8)).view(bool)
    step = _BRACKET_STEP[codes]
    step[in_string] = 0
    moves = step[step != 0]
    return int(np.cumsum(moves, dtype=np.int32).max(initial=0))


def _number_from_digits(digits: str):
    return int(digits) if len(digits.lstrip("-")) <= _INT_DIGITS else float(digits)


def loads(text: str, source: str, limit: int = MAX_JSON_BYTES):
    """Parse JSON text from source (named in every error). NaN and Infinity literals parse (as Python
    does) so that the format's own validation can name the field that holds them."""
    if len(text) > limit:
        raise JsonInputError(f"{source}: larger than the limit of {limit // 2**20} MiB")
    depth = nesting_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise JsonInputError(f"{source}: JSON nested {depth} deep, more than the limit of {MAX_JSON_DEPTH}")
    try:
        return json.loads(text, parse_int=_number_from_digits)
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"{source}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def load(path, limit: int = MAX_JSON_BYTES, what: str = "file"):
    """Read and parse a JSON file, with read_text's and loads' limits."""
    return loads(read_text(path, limit, what), str(path), limit)

