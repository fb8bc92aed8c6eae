"""Typed errors for bad input. Each names the culprit (footprint index, field, file) in its message."""


class FootprintError(ValueError):
    """Base class of every bad-input error the solver raises."""


class TrackFormatError(FootprintError):
    """The data is not a footprint track: malformed JSON, a foreign format, a missing or mistyped field."""


class NonFiniteError(FootprintError):
    """A footprint holds NaN or infinity."""


class RangeError(FootprintError):
    """A number far outside what a motion can be made of: a position beyond MAX_DISTANCE, a time beyond
    MAX_SECONDS, or more frames to sample than MAX_FRAMES (track.py)."""


class TimingError(FootprintError):
    """A footprint's lift-off is not after its contact."""


class OverlapError(FootprintError):
    """Two contacts of the same foot overlap in time."""


class UnknownFootError(FootprintError):
    """A footprint names a foot the character does not have."""


class UnknownPresetError(FootprintError):
    """A character preset that does not exist."""


class CharacterError(FootprintError):
    """Explicit character parameters that are missing or impossible."""


class PathError(FootprintError):
    """A path to place footprints along is unusable (zero length, too few points, non-finite)."""


class PlanningError(FootprintError):
    """No plan exists: a start or goal on no stone, a gap wider than the character leaps (it names the gap)."""


class StanceError(FootprintError):
    """A standing stance that cannot be stood in: feet overlapping or crossed, or farther apart than the legs
    reach (solver/stepping)."""


class SteppingError(FootprintError):
    """A stepping track ("motion": "stepping") or a stepping request that cannot be stepped: a foot not
    standing at the start or the end, both feet off the ground at once, a push too strong to recover from."""
