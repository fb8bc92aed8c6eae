"""Mutated footprint tracks for the fuzz test (test_fuzz.py): gentle ones that stay valid, hostile ones.

A case starts from a known-good track document (tests/data), applies a few mutations chosen by a
random.Random, and is written out as the bytes of a file. Each mutation returns a short description, so a
failing case reads as the steps that made it, e.g. "fig1[:4] | footprints[2].contact := NaN".

Hostile values are the ones real files hold: NaN and Infinity literals (json.dumps writes them), numbers
past a float's range written as JSON text (1e400, a 400-digit integer), deep nesting, invalid UTF-8.
"""

from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import dataclass, field

NAN, INF = float("nan"), float("inf")


class Raw:
    """JSON text spliced in verbatim, for what json.dumps cannot write: 1e400, 5000 digits, 5000 "["."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text if len(self.text) <= 24 else f"{self.text[:10]}...({len(self.text)} chars)"


def to_json_bytes(doc) -> bytes:
    """The document as JSON text (UTF-8), NaN and Infinity as literals, Raw values spliced in."""
    raws = []

    def stand_in(value):  # json.dumps calls this for what it cannot write: here only Raw
        raws.append(value.text)
        return f"@@raw{len(raws) - 1}@@"

    text = json.dumps(doc, default=stand_in)
    for index, raw in enumerate(raws):
        text = text.replace(f'"@@raw{index}@@"', raw, 1)
    return text.encode("utf-8")


def short(value) -> str:
    """A value as a failure message shows it: JSON-like and at most ~40 characters."""
    if isinstance(value, Raw):
        return repr(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}...({len(text)} chars)"


@dataclass
class Case:
    """One fuzz input: where it came from, the steps that made it, the file's bytes, and solve's --fps."""

    index: int
    base: str
    steps: list = field(default_factory=list)
    data: bytes = b""
    fps: str | None = "30"  # None: solve's default

    def describe(self) -> str:
        fps = f" (solve --fps {self.fps})" if self.fps else " (solve at the default fps)"
        return " | ".join([self.base] + self.steps) + fps


# --- paths into a document ----------------------------------------------------------------------------


def json_paths(rng: random.Random, node, path=()):
    """Paths to the document's values, the root included; of a long list only a few items (a height
    field's thousands of numbers would otherwise drown every other field)."""
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from json_paths(rng, value, path + (key,))
    elif isinstance(node, list):
        indices = range(len(node)) if len(node) <= 6 else sorted(rng.sample(range(len(node)), 4))
        for index in indices:
            yield from json_paths(rng, node[index], path + (index,))


def path_text(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "<document>"


def set_at(doc, path, value):
    """The document with the value at path replaced (the new document, when path is the root)."""
    if not path:
        return value
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return doc


def footprints(doc) -> list:
    """The document's footprint dicts that still look like footprints (earlier mutations may have broken
    some); an empty list when there are none."""
    items = doc.get("footprints") if isinstance(doc, dict) else None
    return [fp for fp in items if isinstance(fp, dict)] if isinstance(items, list) else []


def numbers_of(fp, key):
    value = fp.get(key)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- hostile values -------------------------------------------------------------------------------------

DIGITS_400 = 10 ** 400  # json.dumps writes it as 401 digits; float() of it overflows


def deep_nesting(depth: int) -> Raw:
    return Raw("[" * depth + "]" * depth)


HOSTILE_VALUES = [
    NAN, INF, -INF, 1e308, -1e308, 1e20, -1e20, 0, -1, 1e-300, -0.0, 0.5, 1e6, 1e-9, 2 ** 63,
    DIGITS_400, -DIGITS_400, Raw("1e400"), Raw("-1e999"), Raw("1" + "0" * 5000),
    "", "x" * 1000, "L", "NaN", Raw('"\\ud800"'),
    [], {}, None, True, False,
    [[[[0]]]], [0, 0, 0, 0], [NAN, NAN, NAN], [1e308, 1e308, 1e308], [DIGITS_400, 0, 0],
    {"flat": 0}, deep_nesting(5000), deep_nesting(200),
]

CHARACTER_NUMBERS = ("leg_length_nominal", "leg_length_max", "foot_length", "foot_width", "com_clearance",
                     "pitch_amplitude", "roll_amplitude", "bank_gain", "swing_clearance", "heel_strike",
                     "pelvic_rotation", "pelvic_list")
ABSURD_NUMBERS = [1e10, 1e308, 1e-300, 1e-9, 0, -1, NAN, INF, DIGITS_400, Raw("1e400"), 1e6, 100.0, "x", [],
                  None, True]
ABSURD_CHARACTERS = [
    {"leg_length_nominal": 1e10, "leg_length_max": 2e10},
    {"leg_length_nominal": 1e-9, "leg_length_max": 2e-9},
    {"leg_length_nominal": 0.86, "leg_length_max": 0.86 + 1e-12},
    {"leg_length_nominal": 1e308, "leg_length_max": INF},
    {"hip_offsets": {"L": [1e308, 0, 0], "R": [-1e308, 0, 0]}},
    {"hip_offsets": {"L": [0, 0, 1e10], "R": [0, 0, 1e10]}},
    {"hip_offsets": {"L": [DIGITS_400, 0, 0], "R": [0, 0, 0]}},
    {"hip_offsets": {"L": [NAN, 0, 0], "R": [0, 0, 0]}},
    {"hip_offsets": {"L": [], "R": []}},
    {"hip_offsets": {"L": "abc", "R": "abc"}},
    {"hip_offsets": {"L": 5, "R": 5}},
    {"hip_offsets": {"L": {"x": 1}, "R": {"y": 2}}},
    {"hip_offsets": [[0, 0, 0], [0, 0, 0]]},
    {"hip_offsets": None},
    {"feet": ["L"]}, {"feet": ["L", "L"]}, {"feet": []}, {"feet": "LR"}, {"feet": 5}, {"feet": None},
    {"feet": [[]]}, {"feet": ["LH", "RH", "LF", "RF"]},
    {"feet": ["LH", "RH", "LF", "RF"],
     "hip_offsets": {"LH": [-0.1, -0.4, 0], "RH": [0.1, -0.4, 0], "LF": [-0.1, 0.4, 0], "RF": [0.1, 0.4, 0]}},
    {"preset": "centaur"}, {"preset": ""}, {"preset": []}, {"preset": {}}, {"preset": None}, {"preset": 5},
]
WHOLE_CHARACTERS = [5, [], None, "", "HUMAN", "centaur", {}, True, "x" * 1000, NAN]


# --- gentle mutations: the track stays valid --------------------------------------------------------------
# Each takes (rng, doc) and returns (doc, description).


def jitter_positions(rng, doc):
    sigma = rng.choice([0.001, 0.01, 0.03])
    for fp in footprints(doc):
        if isinstance(fp.get("position"), list):
            fp["position"] = [v + rng.gauss(0.0, sigma) if isinstance(v, (int, float)) else v
                              for v in fp["position"]]
    return doc, f"positions jittered by {sigma} m"


def turn_headings(rng, doc):
    degrees = rng.uniform(-20.0, 20.0)
    for fp in footprints(doc):
        if numbers_of(fp, "heading"):
            fp["heading"] += degrees
    return doc, f"headings + {degrees:.1f} deg"


def shift_times(rng, doc):
    seconds = rng.choice([-3.0, -0.25, 0.5, 10.0, 1000.0])
    for fp in footprints(doc):
        for key in ("contact", "liftoff"):
            if numbers_of(fp, key):
                fp[key] += seconds
    return doc, f"times + {seconds} s"


def scale_times(rng, doc):
    factor = rng.uniform(0.7, 1.4)
    for fp in footprints(doc):
        for key in ("contact", "liftoff"):
            if numbers_of(fp, key):
                fp[key] *= factor
    return doc, f"times x {factor:.3f}"


def keep_first(rng, doc):
    items = doc.get("footprints")
    if isinstance(items, list) and len(items) > 1:
        count = rng.randint(1, len(items) - 1)
        doc["footprints"] = items[:count]
        return doc, f"first {count} footprints"
    return doc, "first footprints (unchanged)"


def translate(rng, doc):
    offset = [rng.choice([-1, 1]) * rng.choice([0.5, 100.0, 1e4, 9e5]) for _ in range(2)]
    for fp in footprints(doc):
        position = fp.get("position")
        if isinstance(position, list) and len(position) >= 2 and all(isinstance(v, (int, float)) for v in position):
            fp["position"] = [position[0] + offset[0], position[1] + offset[1]] + position[2:]
    if isinstance(doc.get("terrain"), dict) and isinstance(doc["terrain"].get("heightfield"), dict):
        origin = doc["terrain"]["heightfield"].get("origin")
        if isinstance(origin, list) and len(origin) == 2 and all(isinstance(v, (int, float)) for v in origin):
            doc["terrain"]["heightfield"]["origin"] = [origin[0] + offset[0], origin[1] + offset[1]]
    return doc, f"moved by {offset} m"


def other_preset(rng, doc):
    doc["character"] = rng.choice(["human", "bird", "dinosaur"])
    return doc, f"character := {short(doc['character'])}"


def explicit_character(rng, doc):
    nominal = rng.uniform(0.2, 2.0)
    doc["character"] = {"preset": rng.choice(["human", "bird", "dinosaur"]), "leg_length_nominal": nominal,
                        "leg_length_max": nominal * rng.uniform(1.05, 1.3)}
    return doc, f"character := {json.dumps(doc['character'])}"


def flat_ground(rng, doc):
    doc["terrain"] = {"flat": round(rng.uniform(-1.0, 1.0), 3)}
    return doc, f"terrain := {json.dumps(doc['terrain'])}"


def named_ground(rng, doc):
    doc["terrain"] = {"object": "Ground", "collection": "Terrain"}
    return doc, "terrain := a Blender object (ignored by the solver)"


def sloped_height_field(rng, doc):
    doc["terrain"] = {"heightfield": small_height_field(doc, slope=rng.uniform(-0.2, 0.2))}
    return doc, "terrain := a small sloped height field"


def heights_from_terrain(rng, doc):
    for fp in footprints(doc):
        if isinstance(fp.get("position"), list):
            fp["position"] = fp["position"][:2]
    return doc, "positions without heights"


def no_headings(rng, doc):
    for fp in footprints(doc):
        fp.pop("heading", None)
    return doc, "headings removed"


def reorder_footprints(rng, doc):
    if isinstance(doc.get("footprints"), list):
        rng.shuffle(doc["footprints"])
    return doc, "footprints shuffled"


def repeat_track(rng, doc):
    """The walk continued: copies of the footprints, each later than the last and further along."""
    items = footprints(doc)
    timed = [fp for fp in items if numbers_of(fp, "contact") and numbers_of(fp, "liftoff")
             and isinstance(fp.get("position"), list) and len(fp["position"]) >= 2]
    if len(timed) != len(items) or not items:
        return doc, "repeated (not: footprints unreadable)"
    span = max(fp["liftoff"] for fp in items) - min(fp["contact"] for fp in items) + 0.05
    step = [items[-1]["position"][k] - items[0]["position"][k] for k in range(2)]
    copies = rng.randint(1, max(1, 16 // len(items)))  # at most 16 footprints, or one copy
    repeated = list(items)
    for n in range(1, copies + 1):
        for fp in items:
            moved = copy.deepcopy(fp)
            moved["contact"] += n * span
            moved["liftoff"] += n * span
            moved["position"] = [fp["position"][0] + n * step[0], fp["position"][1] + n * step[1]] + fp["position"][2:]
            repeated.append(moved)
    doc["footprints"] = repeated
    return doc, f"repeated {copies} more times ({len(repeated)} footprints)"


GENTLE = [jitter_positions, turn_headings, shift_times, scale_times, keep_first, translate, other_preset,
          explicit_character, flat_ground, named_ground, sloped_height_field, heights_from_terrain, no_headings,
          reorder_footprints]
GENTLE_RARE = [repeat_track]  # slower to solve: a long track now and then, not in every tenth case


def small_height_field(doc, slope=0.0, cells=3):
    """A valid cells x cells height field covering the footprints, rising by slope along +y."""
    xy = [fp["position"][:2] for fp in footprints(doc) if isinstance(fp.get("position"), list)
          and len(fp["position"]) >= 2 and all(isinstance(v, (int, float)) and math.isfinite(v)
                                                 for v in fp["position"][:2])]
    xs, ys = [p[0] for p in xy] or [0.0], [p[1] for p in xy] or [0.0]
    low_x, low_y = min(xs) - 1.0, min(ys) - 1.0
    spacing = max(max(xs) - low_x, max(ys) - low_y, 1.0) / (cells - 2)
    heights = [[slope * j * spacing for _ in range(cells)] for j in range(cells)]
    return {"origin": [low_x, low_y], "spacing": spacing, "heights": heights}


# --- hostile mutations -----------------------------------------------------------------------------------


def replace_any_value(rng, doc):
    path = rng.choice(list(json_paths(rng, doc)))
    value = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    return set_at(doc, path, value), f"{path_text(path)} := {short(value)}"


def replace_footprint_field(rng, doc):
    """The hostile values where they hurt most: a footprint's numbers."""
    items = footprints(doc)
    if not items:
        return replace_any_value(rng, doc)
    index = rng.randrange(len(items))
    key = rng.choice(["position", "heading", "contact", "liftoff", "foot"])
    value = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    position = items[index].get("position")
    if key == "position" and isinstance(position, list) and position and rng.random() < 0.7:
        axis = rng.randrange(len(position))
        position[axis] = value
        return doc, f"footprints[{index}].position[{axis}] := {short(value)}"
    items[index][key] = value
    return doc, f"footprints[{index}].{key} := {short(value)}"


def delete_key(rng, doc):
    paths = [p for p in json_paths(rng, doc) if p]
    dict_paths = [p for p in paths if isinstance(p[-1], str)]
    if not dict_paths:
        return doc, "delete a key (none)"
    path = rng.choice(dict_paths)
    node = doc
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return doc, f"deleted {path_text(path)}"


def duplicate_footprint(rng, doc):
    items = doc.get("footprints")
    if isinstance(items, list) and items:
        index = rng.randrange(len(items))
        items.insert(index, copy.deepcopy(items[index]))
        return doc, f"footprints[{index}] duplicated"
    return doc, "duplicate a footprint (none)"


def drop_footprint(rng, doc):
    items = doc.get("footprints")
    if isinstance(items, list) and items:
        index = rng.randrange(len(items))
        del items[index]
        return doc, f"footprints[{index}] dropped"
    return doc, "drop a footprint (none)"


def no_footprints(rng, doc):
    if isinstance(doc, dict):
        doc["footprints"] = []
    return doc, "footprints := []"


def random_footprint(rng, doc):
    """(index, footprint) of one footprint picked at random, or None when the document has none."""
    items = footprints(doc)
    return (index := rng.randrange(len(items)), items[index]) if items else None


def swap_contact_liftoff(rng, doc):
    if (picked := random_footprint(rng, doc)) is None:
        return doc, "swap contact and liftoff (no footprints)"
    index, fp = picked
    fp["contact"], fp["liftoff"] = fp.get("liftoff"), fp.get("contact")
    return doc, f"footprints[{index}]: contact and liftoff swapped"


def shift_one_footprint(rng, doc):
    if (picked := random_footprint(rng, doc)) is None:
        return doc, "shift a footprint in time (no footprints)"
    index, fp = picked
    seconds = rng.choice([-1.0, -0.1, 0.1, 1.0, 100.0, 1e5, 1e6, 2e6, -2e6])
    keys = rng.choice([("contact",), ("liftoff",), ("contact", "liftoff")])
    for key in keys:
        if numbers_of(fp, key):
            fp[key] += seconds
    return doc, f"footprints[{index}].{'+'.join(keys)} + {seconds} s"


def stretch_times(rng, doc):
    """Absurd time scales: a track over in a microsecond, or standing for days. The track is scaled to last
    a chosen span rather than by a chosen factor, so that a case's cost does not depend on its base: a
    track of 200 s is 6,000 frames to solve; one of 1e5 s is past the frame limit at any fps and refused."""
    items = [fp for fp in footprints(doc) if numbers_of(fp, "contact") and numbers_of(fp, "liftoff")]
    if not items:
        return doc, "stretch the times (no timed footprints)"
    first = min(fp["contact"] for fp in items)
    span = max(fp["liftoff"] for fp in items) - first
    target = rng.choice([1e-9, 1e-6, 1e-3, 0.1, 200.0, 1e5, 1e7])
    factor = target / span if span > 0 else target
    for fp in items:
        fp["contact"] = first + (fp["contact"] - first) * factor
        fp["liftoff"] = first + (fp["liftoff"] - first) * factor
    return doc, f"times stretched to last {target:g} s"


def spread_positions(rng, doc):
    """Absurd distances: footprints a micrometre apart, or kilometres."""
    factor = rng.choice([0.0, 1e-6, 1e3, 1e5, 1e7])
    for fp in footprints(doc):
        if isinstance(fp.get("position"), list):
            fp["position"] = [v * factor if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                              for v in fp["position"]]
    return doc, f"positions x {factor:g}"


def rename_foot(rng, doc):
    if (picked := random_footprint(rng, doc)) is None:
        return doc, "rename a foot (no footprints)"
    index, fp = picked
    fp["foot"] = rng.choice(["LH", "RF", "l", "LL", "", "XYZ", "R", "L", "\u00e9"])
    return doc, f"footprints[{index}].foot := {short(fp['foot'])}"


def all_feet_quadruped(rng, doc):
    """A quadruped: four feet in the character, the first four footprints' feet renamed to them (four:
    a quadruped's solve is slow, and four are enough to use every foot)."""
    renames = {"L": "LH", "R": "RH"}
    if isinstance(doc.get("footprints"), list):
        doc["footprints"] = doc["footprints"][:4]
    for n, fp in enumerate(footprints(doc)):
        if fp.get("foot") in renames:
            fp["foot"] = renames[fp["foot"]] if n % 4 < 2 else renames[fp["foot"]].replace("H", "F")
    doc["character"] = {"feet": ["LH", "RH", "LF", "RF"], "hip_offsets": {
        "LH": [-0.1, -0.4, 0], "RH": [0.1, -0.4, 0], "LF": [-0.1, 0.4, 0], "RF": [0.1, 0.4, 0]}}
    return doc, "a quadruped character, the first 4 footprints' feet renamed LH/RH/LF/RF"


def absurd_character(rng, doc):
    roll = rng.random()
    if roll < 0.4:
        key, value = rng.choice(CHARACTER_NUMBERS), copy.deepcopy(rng.choice(ABSURD_NUMBERS))
        character = {"preset": rng.choice(["human", "bird", "dinosaur"]), key: value}
    elif roll < 0.85:
        character = dict(copy.deepcopy(rng.choice(ABSURD_CHARACTERS)))
    else:
        character = copy.deepcopy(rng.choice(WHOLE_CHARACTERS))
    doc["character"] = character
    return doc, f"character := {short(character) if not isinstance(character, dict) else described(character)}"


def described(mapping: dict) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {short(v)}" for k, v in mapping.items()) + "}"


FLAT_VALUES = [NAN, INF, -INF, 1e20, -1e20, 1e308, DIGITS_400, Raw("1e400"), "x", None, [], {}, True, 1e6, -5.0]


def absurd_terrain(rng, doc):
    roll = rng.random()
    if roll < 0.3:
        terrain = {"flat": copy.deepcopy(rng.choice(FLAT_VALUES))}
        step = f"terrain := {described(terrain)}"
    elif roll < 0.9:
        height_field, change = broken_height_field(rng, doc)
        terrain = {"heightfield": height_field}
        step = f"terrain := a small height field, {change}"
    else:
        terrain = copy.deepcopy(rng.choice([NAN, "x", [], None, {}, {"heightfield": None}, {"heightfield": []},
                                            {"heightfield": "x"}, {"heightfield": {}}, {"flat": 0, "heightfield": 1}]))
        step = f"terrain := {described(terrain) if isinstance(terrain, dict) else short(terrain)}"
    doc["terrain"] = terrain
    return doc, step


def broken_height_field(rng, doc):
    """A valid small height field with one field made hostile; and which field, how."""
    height_field = small_height_field(doc, slope=0.1)
    key = rng.choice(["origin", "spacing", "heights", "heights", "missing"])
    if key == "missing":
        key = rng.choice(["origin", "spacing", "heights"])
        del height_field[key]
        return height_field, f"without {key}"
    if key == "origin":
        value = rng.choice([[NAN, 0], [0], [], "ab", [DIGITS_400, 0], [1e308, 1e308], [INF, INF], [0, 0, 0], None,
                            [[0], [0]]])
    elif key == "spacing":
        value = rng.choice([1e-300, 1e300, NAN, INF, 0, -1, DIGITS_400, "x", None, 1e-9, [1]])
    else:
        value = rng.choice([
            [[0, 0, 0]], [[0]], [], [[]], [[0, 0], [0]], [[[0, 0], [0, 0]], [[0, 0], [0, 0]]],
            [[1e308, -1e308], [1e308, -1e308]], [[NAN, 0], [0, 0]], [["x", "y"], ["z", "w"]],
            [[DIGITS_400, 0], [0, 0]], [[1e300, 1e300], [1e300, 1e300]], [[0] * 1000, [0] * 1000],
            [[0, 0]] * 1000, [[0.0] * 1000 for _ in range(1000)], 5, "heights",
        ])
    height_field[key] = copy.deepcopy(value)
    return height_field, f"{key} := {short(value)}"


def top_level_value(rng, doc):
    """A top-level field (known, or a stranger) set to a hostile value."""
    if not isinstance(doc, dict):
        return doc, "set a top-level field (document not an object)"
    key = rng.choice(["format", "version", "footprints", "character", "terrain", "fps", "note", "extra"])
    value = copy.deepcopy(rng.choice(HOSTILE_VALUES + [1.0, "footprint-motion", 2]))
    doc[key] = value
    return doc, f"{key} := {short(value)}"


HOSTILE = [replace_any_value, replace_footprint_field, replace_footprint_field, delete_key, duplicate_footprint,
           drop_footprint, no_footprints, swap_contact_liftoff, shift_one_footprint, stretch_times,
           spread_positions, rename_foot, all_feet_quadruped, absurd_character, absurd_character,
           absurd_terrain, absurd_terrain, top_level_value]


# --- text-level corruption: the file's bytes ---------------------------------------------------------------
# Each takes (rng, data) and returns (data, description).


def truncate(rng, data):
    cut = rng.randrange(len(data) + 1)
    return data[:cut], f"truncated at byte {cut} of {len(data)}"


def insert_bytes(rng, data):
    at = rng.randrange(len(data) + 1)
    extra = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return data[:at] + extra + data[at:], f"bytes {extra!r} inserted at {at}"


def delete_bytes(rng, data):
    at = rng.randrange(len(data) + 1)
    count = rng.randint(1, 16)
    return data[:at] + data[at + count:], f"{count} bytes deleted at {at}"


def flip_bit(rng, data):
    if not data:
        return data, "flip a bit (empty)"
    at = rng.randrange(len(data))
    bit = 1 << rng.randrange(8)
    return data[:at] + bytes([data[at] ^ bit]) + data[at + 1:], f"bit {bit:#x} flipped at byte {at}"


def invalid_utf8(rng, data):
    at = rng.randrange(len(data) + 1)
    bad = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"])
    return data[:at] + bad + data[at:], f"invalid UTF-8 {bad!r} at byte {at}"


def deeply_nested(rng, data):
    depth = rng.choice([1000, 5000, 100_000])
    opener = rng.choice(["[", '{"a":'])
    if rng.random() < 0.5:
        return (opener * depth).encode(), f"replaced by {opener!r} x {depth}, unclosed"
    return b"[" * depth + data + b"]" * depth, f"wrapped in {depth} arrays"


def odd_encoding(rng, data):
    kind = rng.choice(["empty", "bom", "utf16", "nul", "spaces", "trailing", "null"])
    if kind == "empty":
        return b"", "empty file"
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "UTF-8 byte order mark first"
    if kind == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16"), "encoded as UTF-16"
    if kind == "nul":
        return data + b"\x00" * 16, "NUL bytes after the document"
    if kind == "spaces":
        return b" \n\t" * 1000, "only whitespace"
    if kind == "trailing":
        return data + b"{}", "a second document after the first"
    return b"null", "the document is null"


TEXT = [truncate, truncate, insert_bytes, delete_bytes, flip_bit, invalid_utf8, deeply_nested, odd_encoding]


# --- a case ----------------------------------------------------------------------------------------------


def make_case(seed, index: int, bases: dict) -> Case:
    """Case number index of a seed: the same seed and index always make the same case (replayable alone).

    About 35 % are gentle (one or two perturbations that keep the track valid), 50 % hostile at the
    JSON level (one or two hostile mutations, perhaps after a gentle one), 15 % corrupted at the byte level
    (perhaps after a gentle one).
    """
    rng = random.Random(f"footprint-fuzz:{seed}:{index}")
    base = rng.choice(sorted(bases))
    case = Case(index, base, fps=rng.choice(["30", "30", "30", None, "24"]))
    doc = json.loads(bases[base])
    roll = rng.random()
    gentle_steps = rng.randint(1, 2) if roll < 0.35 else rng.randint(0, 1)
    for _ in range(gentle_steps):
        doc, step = rng.choice(GENTLE if rng.random() > 0.03 else GENTLE_RARE)(rng, doc)
        case.steps.append(step)
    if 0.35 <= roll < 0.85:
        for _ in range(rng.choice([1, 1, 1, 2])):
            if not isinstance(doc, dict):  # the whole document was replaced: nothing left to mutate
                break
            doc, step = rng.choice(HOSTILE)(rng, doc)
            case.steps.append(step)
    data = to_json_bytes(doc)
    if roll >= 0.85:
        data, step = rng.choice(TEXT)(rng, data)
        case.steps.append(step)
    case.data = data
    return case
