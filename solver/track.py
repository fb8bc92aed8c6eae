"""Footprint tracks as arrays, their validation, and the JSON interchange format (track-format.md).

A footprint is where a foot's support point rests: a position (metres, world, Z up), a heading (radians
about +Z, 0 = toes along +Y) and the interval [contact, liftoff) in seconds during which the foot is on it
(vdP97 §2.1).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

import numpy as np

from . import json_input
from .character import ALL_FEET, character_from_json
from .terrain import terrain_from_json
from .errors import (FootprintError, NonFiniteError, OverlapError, RangeError, TimingError, TrackFormatError,
                     UnknownFootError)

FORMAT_NAME = "footprint-track"
FORMAT_VERSION = 1
MAX_FOOTPRINTS = 100_000
MAX_DISTANCE = 1e6  # metres from the origin (1000 km): beyond, a position is a mistake, and float32 in
# Blender has long stopped resolving millimetres
MAX_SECONDS = 1e6  # seconds from time 0 (11.5 days)
MAX_FPS = 1000  # samples per second: the command line's --fps and a track's "fps" alike
MAX_FRAMES = 1_000_000  # samples of one motion (4.6 hours at 60 fps): beyond, memory runs out
STEPPING = "stepping"  # the optional top-level "motion": feet stepping one at a time from standing (solver/stepping)
STANDING_ENDS = "standing_ends"  # ...or a walk that starts and stops standing (solver/stepping/walk_ends.py)
MOTIONS = (STEPPING, STANDING_ENDS)
MAX_SPEED = 100.0  # m/s: a stepping track's starting "com_velocity" beyond this is a mistake


@dataclass(frozen=True)
class Track:
    feet: np.ndarray  # (n,) str, one of ALL_FEET
    positions: np.ndarray  # (n, 3)
    headings: np.ndarray  # (n,) radians
    contact: np.ndarray  # (n,) seconds
    liftoff: np.ndarray  # (n,) seconds
    has_height: np.ndarray = None  # (n,) bool: False where the JSON gave only x, y (height from terrain)
    character: object = "human"  # preset name or explicit parameter dict, as in the JSON
    extras: dict = field(default_factory=dict)  # optional top-level fields kept for round trips

    def __post_init__(self):
        if self.has_height is None:
            object.__setattr__(self, "has_height", np.ones(len(self.feet), dtype=bool))

    def __len__(self):
        return len(self.feet)

    def replace(self, **changes) -> "Track":
        return replace(self, **changes)

    def take(self, order) -> "Track":
        """The footprints at the given indices (a permutation, subset or boolean mask)."""
        return replace(
            self,
            feet=self.feet[order],
            positions=self.positions[order],
            headings=self.headings[order],
            contact=self.contact[order],
            liftoff=self.liftoff[order],
            has_height=self.has_height[order],
        )

    @property
    def is_stepping(self) -> bool:
        """Marked "motion": "stepping": solved by solver.stepping (WMZ steps), not the COM optimisation."""
        return self.extras.get("motion") == STEPPING

    @property
    def has_standing_ends(self) -> bool:
        """Marked "motion": "standing_ends": a walk whose first and last steps are WMZ steps from and to
        standing, the COM optimisation between (stepping/walk_ends.py)."""
        return self.extras.get("motion") == STANDING_ENDS

    def time_order(self) -> np.ndarray:
        """Indices sorting footprints by contact time, ties by foot name (a stable, canonical order)."""
        return np.lexsort((self.feet, self.contact))


def make_track(feet, positions, headings, contact, liftoff, **kwargs) -> Track:
    return Track(
        feet=np.asarray(feet, dtype="<U2"),
        positions=np.asarray(positions, dtype=float).reshape(-1, 3),
        headings=np.asarray(headings, dtype=float),
        contact=np.asarray(contact, dtype=float),
        liftoff=np.asarray(liftoff, dtype=float),
        **kwargs,
    )


def validate(track: Track, allowed_feet=ALL_FEET, labels=None) -> Track:
    """Raise the typed error for the first bad footprint; return the track unchanged when it is sound.

    labels: optional names for the footprints (object names in Blender), used in messages instead of
    "footprint <index>".
    """

    def name(i):
        return f"footprint {labels[i]!r}" if labels is not None else f"footprint {int(i)}"

    values = {
        "position": track.positions,
        "heading": track.headings[:, None],
        "contact": track.contact[:, None],
        "liftoff": track.liftoff[:, None],
    }
    for field_name, arr in values.items():
        bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        if bad.size:
            raise NonFiniteError(f"{name(bad[0])}: {field_name} is not a finite number")
    for field_name, limit, unit in (("position", MAX_DISTANCE, "m"), ("contact", MAX_SECONDS, "s"),
                                    ("liftoff", MAX_SECONDS, "s")):
        bad = np.flatnonzero((np.abs(values[field_name]) > limit).any(axis=1))
        if bad.size:
            value = values[field_name][bad[0]]
            shown = value[np.argmax(np.abs(value))]
            raise RangeError(f"{name(bad[0])}: {field_name} {shown:.4g} {unit} is beyond the limit of "
                             f"{limit:.0e} {unit}")
    unknown = np.flatnonzero(~np.isin(track.feet, list(allowed_feet)))
    if unknown.size:
        i = unknown[0]
        raise UnknownFootError(f"{name(i)}: unknown foot {str(track.feet[i])!r}; expected one of {list(allowed_feet)}")
    reversed_ = np.flatnonzero(track.liftoff <= track.contact)
    if reversed_.size:
        i = reversed_[0]
        raise TimingError(
            f"{name(i)}: liftoff {track.liftoff[i]:.4g} s is not after contact {track.contact[i]:.4g} s"
        )
    order = np.lexsort((track.contact, track.feet))  # grouped by foot, then by time
    same_foot = track.feet[order][1:] == track.feet[order][:-1]
    overlaps = np.flatnonzero(same_foot & (track.contact[order][1:] < track.liftoff[order][:-1]))
    if overlaps.size:
        a, b = order[overlaps[0]], order[overlaps[0] + 1]
        raise OverlapError(
            f"{name(b)}: foot {str(track.feet[b])} touches down at {track.contact[b]:.4g} s while still on "
            f"{name(a)} (contact {track.contact[a]:.4g} s to {track.liftoff[a]:.4g} s)"
        )
    return track


# --- JSON ------------------------------------------------------------------------------------------


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TrackFormatError(f"{where} must be a number, not {json.dumps(value)[:40]}")
    try:
        return float(value)
    except OverflowError:  # an int beyond any float, from a caller that did not parse it with json_input
        raise RangeError(f"{where}: {str(value)[:20]}... is beyond any float") from None


def track_from_json(data) -> Track:
    """Parse a decoded JSON document (dict) into a validated Track."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise TrackFormatError(f'not a footprint track: expected "format": "{FORMAT_NAME}"')
    if data.get("version") != FORMAT_VERSION:
        raise TrackFormatError(f"unsupported footprint-track version {data.get('version')!r}; expected {FORMAT_VERSION}")
    items = data.get("footprints")
    if not isinstance(items, list):
        raise TrackFormatError('"footprints" must be a list')
    if not items:
        raise TrackFormatError("the track has no footprints")
    if len(items) > MAX_FOOTPRINTS:
        raise TrackFormatError(f"{len(items)} footprints is more than the limit of {MAX_FOOTPRINTS}")
    character_field = data.get("character", "human")
    character = character_from_json(character_field)
    n = len(items)
    feet = np.empty(n, dtype="<U2")
    positions = np.zeros((n, 3))
    has_height = np.ones(n, dtype=bool)
    headings, contact, liftoff = np.zeros(n), np.zeros(n), np.zeros(n)
    for i, item in enumerate(items):
        where = f"footprint {i}"
        if not isinstance(item, dict):
            raise TrackFormatError(f"{where} must be an object")
        missing = [k for k in ("foot", "position", "contact", "liftoff") if k not in item]
        if missing:
            raise TrackFormatError(f"{where}: missing field {missing[0]!r}")
        if not isinstance(item["foot"], str):
            raise TrackFormatError(f"{where}: foot must be a string")
        if len(item["foot"]) > 2 or item["foot"] not in ALL_FEET:
            raise UnknownFootError(f"{where}: unknown foot {item['foot'][:20]!r}; expected one of {list(character.feet)}")
        feet[i] = item["foot"]
        pos = item["position"]
        if not isinstance(pos, list) or len(pos) not in (2, 3):
            raise TrackFormatError(f"{where}: position must be [x, y] or [x, y, z]")
        positions[i, : len(pos)] = [_number(v, f"{where}: position") for v in pos]
        has_height[i] = len(pos) == 3
        headings[i] = math.radians(_number(item.get("heading", 0.0), f"{where}: heading"))
        contact[i] = _number(item["contact"], f"{where}: contact")
        liftoff[i] = _number(item["liftoff"], f"{where}: liftoff")
    extras = {k: data[k] for k in ("terrain", "fps", "motion", "com_velocity") if k in data}
    terrain_from_json(extras.get("terrain"))  # refused here, with the file's name, rather than at solve time
    _check_motion(extras)
    fps = extras.get("fps", 1)
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= MAX_FPS:
        raise TrackFormatError(f'"fps" must be a number in (0, {MAX_FPS}], not {json.dumps(extras["fps"])[:40]}')
    track = Track(feet, positions, headings, contact, liftoff, has_height, character_field, extras)
    return validate(track, allowed_feet=character.feet)


def _check_motion(extras):
    """The optional "motion" (one of MOTIONS) and, with "motion": "stepping", "com_velocity" ([vx, vy] m/s:
    the COM's horizontal velocity at the start, a push to recover from)."""
    motion = extras.get("motion")
    if "motion" in extras and motion not in MOTIONS:
        raise TrackFormatError(f'"motion" must be one of {list(MOTIONS)}, not {json.dumps(motion)[:40]}')
    if "com_velocity" not in extras:
        return
    if motion != STEPPING:
        raise TrackFormatError(f'"com_velocity" belongs to a stepping track: give "motion": "{STEPPING}" with it')
    velocity = extras["com_velocity"]
    if not isinstance(velocity, list) or len(velocity) != 2:
        raise TrackFormatError('"com_velocity" must be [vx, vy] (m/s)')
    values = [_number(v, '"com_velocity"') for v in velocity]
    if not all(math.isfinite(v) for v in values):
        raise NonFiniteError('"com_velocity" is not a pair of finite numbers')
    if math.hypot(*values) > MAX_SPEED:
        raise RangeError(f'"com_velocity" {math.hypot(*values):.4g} m/s is beyond the limit of {MAX_SPEED:g} m/s')


def parse_track_text(text: str, source: str = "track") -> Track:
    data = json_input.loads(text, source)  # NaN and Infinity parse, then validation names the footprint and field
    try:
        return track_from_json(data)
    except FootprintError as exc:
        raise type(exc)(f"{source}: {exc}") from None


def load_track(path) -> Track:
    return parse_track_text(json_input.read_text(path, what="track file"), source=str(path))


def json_number(value: float, kind: str) -> float:
    """A number as the JSON stores it: headings in degrees, everything else as is."""
    return (math.degrees(value) if kind == "heading" else float(value)) + 0.0  # + 0.0 turns -0.0 into 0.0


def track_to_json(track: Track, number=json_number) -> dict:
    """The JSON document for a track, footprints in time order.

    number(value, kind) turns a solver value (kind "position", "heading" in radians, "time") into the
    JSON number; the Blender seam passes one that writes the shortest decimal that reads back exactly.
    """
    footprints = []
    for i in track.time_order():
        pos = track.positions[i] if track.has_height[i] else track.positions[i, :2]
        footprints.append(
            {
                "foot": str(track.feet[i]),
                "position": [number(v, "position") for v in pos],
                "heading": number(track.headings[i], "heading"),
                "contact": number(track.contact[i], "time"),
                "liftoff": number(track.liftoff[i], "time"),
            }
        )
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "character": track.character}
    doc.update(track.extras)
    doc["footprints"] = footprints
    return doc


def dumps(doc: dict) -> str:
    """JSON text with one footprint per line: readable, diffable, and parseable by any JSON reader."""
    head = {k: v for k, v in doc.items() if k != "footprints"}
    lines = [json.dumps(fp, allow_nan=False) for fp in doc.get("footprints", [])]
    text = json.dumps(head, indent=2, allow_nan=False)[:-2]
    return text + ',\n  "footprints": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n"


def frame_count(start: float, end: float, fps: float) -> int:
    """How many frames at fps sample [start, end]; a RangeError for a rate outside (0, MAX_FPS] or more than
    MAX_FRAMES frames (say a footprint that stands for days), before anything that size is allocated."""
    if not 0 < fps <= MAX_FPS:  # (also false for NaN)
        raise RangeError(f"fps must be in (0, {MAX_FPS}], not {fps}")
    count = math.floor((end - start) * fps + 1e-9) + 1
    if count > MAX_FRAMES:
        raise RangeError(f"the track lasts {end - start:.4g} s: at {fps:g} fps that is {count:,} frames, more than "
                         f"the limit of {MAX_FRAMES:,}")
    return count
