"""A quadruped's body from its two solved mass points (Torkos §5, Fig. 9): the spine arched between the
pelvis and the chest, the head leading the motion and held steady against the gait's bob, and the tail
swinging with passive dynamics. The legs are solver/body/legs.py's.

Torkos §5 names the methods and leaves the details open: inverse kinematics for the arch of the spine,
"procedural kinematics ... to pivot the head towards the direction of motion", the tail "animated with
passive dynamics", because "the tail generally swings around and expresses the effects of passive
dynamics, while the head usually leads the motion rather than following it". Here:

- Spine. An arc through both masses: it bends (yaw) by the angle between the ways the hind and the fore
  mass travel (each the secant of its own path over +-half a body length of arc: exact on a circle,
  averaging a step's sway), the pelvis and the chest turned by half of it either side of the line from hind
  to fore, each so tangent to its mass's path on a circle. It twists (roll) by the difference of the
  girdles' banking into the turn (vdP97 §2.6's banking, per mass) plus any roll the caller gives each
  girdle. Both girdles pitch with the line between the masses, and apart by the back's flexion (Torkos §5
  gives the arch to inverse kinematics): a back of constant length that bends by an angle brings the hip and
  shoulder joints, which hang `girdle_depth` under it, that angle times the depth closer, so the masses coming
  together (the spine's spring compressed, a gallop's gathered phase) round the back and their parting (its
  extended phase) hollows it. The arch is spread evenly along `spine_segments` rotations from the pelvis to
  the chest.
- Head. It turns toward where the fore mass will be `lookahead` seconds on along its own path; its height,
  pitch and roll are the chest's with `head_steady` of the gait's bob taken out (what a zero-phase
  critically damped low-pass removes, up to a bob's size: a rear or a leap the head goes along with); the
  neck pitches to carry the head at that height and takes `neck_yaw_share` of the turn.
- Tail. Each tail joint is a damped second-order system (natural frequency, damping ratio) driven by the
  specific force (acceleration less gravity) of the hind mass in the pelvis frame: it deflects opposite to
  the acceleration and swings on after it stops; the joints further out are slower (follow-through along
  the tail). Integrated exactly (the closed-form matrix exponential, the input held over each frame
  interval) and vectorised as FFT convolutions; it starts at rest in its steady state for the first frame
  (no pop), from a given state (a bake continued), or for a looping motion in its periodic steady state.

Frames are the solver's body frame (columns right, forward, up; +Z up, heading 0 = +Y, counter-clockwise
positive; R = Rz(yaw) Rx(pitch) Ry(roll), orientation.py): every rotation here is the world orientation of a
frame that is the identity for an animal standing level facing +Y, so a rig composes it with each bone's
rest orientation.

Pure numpy: no bpy, no mathutils.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..body.transforms import axis_angle_between, rodrigues, smoothstep, wrap_angle
from ..character import GRAVITY
from ..core.orientation import BODY_WINDOW, bank, rotation_matrices
from ..errors import FootprintError, NonFiniteError, RangeError
from ..track import MAX_DISTANCE, MAX_FRAMES

# The Rigify wolf metarig (Blender's bundled one, the dog preset's source in character.py), in its rest pose
# measured from the fore hips' midpoint, in hip-to-hip lengths (0.658 m), +Y forward: the neck's first bone
# (spine.009) starts 0.07 ahead and 0.22 above, the head bone (spine.011) 0.26 ahead and 0.29 above; its tail
# (spine.003 to spine) is 0.70 m long, about one hip-to-hip length.
WOLF_NECK_BASE = (0.0, 0.07, 0.22)
WOLF_HEAD = (0.0, 0.26, 0.29)
WOLF_TAIL_LENGTH = 1.0

UNEVEN_TIMES = 1e-3  # of a frame: the most a frame time may stray from the even spacing (float32 seconds)
LOOP_MISMATCH = 1e-3  # body lengths: the most a loop's closing frame may differ from its first, moved on by
# the cycle's travel (design: far above float32's rounding of a position, far below a visible pop)
TRAVEL_FULL, TRAVEL_NONE = 0.5, 0.1  # secant length over its span: a mass that has travelled at least half
# its span around a frame has a way to face; one that has travelled a tenth or less (standing, shifting its
# weight) has none, and the spine stays straight
PIVOT_FULL, PIVOT_NONE = math.radians(60.0), math.radians(85.0)  # half the angle between the two masses' ways:
# up to 60 degrees (a circle tighter than the body) it bends the spine; toward 90 (the masses moving apart
# sideways, a pivot on the spot) it fades out, where its sign is undecided (design)
UPRIGHT_FULL, UPRIGHT_NONE = 0.5, 0.2  # horizontal share of the hind-to-fore line: at half and more its own
# heading is the body's, at a fifth and less (the body reared nearly upright) the footprints' yaw is
LOOK_NEAR = 0.05  # body lengths: a look-ahead target nearer than this (standing) turns the head not at all,
# twice as far fully
LOOK_ASIDE_FULL, LOOK_ASIDE_NONE = math.cos(math.radians(45.0)), math.cos(math.radians(90.0))  # a target more
# than 45 degrees aside (a sidestep, a pivot, walking backwards) turns the head less, from 90 not at all: it
# leads the body's motion, it does not look over its shoulder (design)
TREND_PERIODS = 2.0  # of the steady filter's cutoff period: the stretch at each end whose straight-line trend
# the filter sees carried on past it (long enough that a bob at twice the cutoff barely tilts the line: a
# 3 m/s climb's last frame then not 0.13 m low, as with the motion merely mirrored)
NECK_LEVER = math.sin(math.radians(45.0))  # the neck steadies the head fully while pitching lifts the head at
# least 0.71 times as fast as the neck is long (the wolf's neck, 20 degrees above level: 0.94); as it nears
# upright (a rearing body) less, upright not at all (design: wide enough that the pitch eases through)
NECK_STEADY = math.radians(30.0)  # the most the neck pitches (softly, untouched to half of it) to steady the
# head: twice what a bob of STEADY_HEIGHT takes of the wolf's neck (design)
STEADY_HEIGHT = 0.1  # body lengths: the head takes out bobs of up to half this fully, softly up to all of it.
# A trot moves the trunk up and down by a few centimetres (the horse's in Buchner et al. 1996, Equine Vet. J.
# 28, "Head and trunk movement adaptations in horses with experimentally induced fore- or hindlimb
# lameness"), a few hundredths of a body length; a rear or a leap is larger, the body's own move, and the
# head goes with it (design)
STEADY_ANGLE = math.radians(10.0)  # the same for pitch and roll: a gait's oscillations are a few degrees
# (vdP97 §2.6's procedural pitch and roll); a rear is not steadied away
GIRDLE_DEPTH = 0.1  # body lengths: the hip and shoulder joints under the back's bending line (the Rigify wolf's
# hang 0.055 and 0.14 m under its spine, a 0.66 m body; the cat's 0.01-0.03 m under a 0.24 m one; the horse's
# 0.01-0.2 m under 1.3 m; design: the spine's spring, two_mass.py, lets the masses move 2 % of a body length
# in a dog's gallop, about 12 degrees of flexion either way at 0.1)
KERNEL_REACH = 17.0  # omega tau: the steady filter's kernel (1 + x) e^-x is below 1e-6 of its peak beyond


class BodyInputError(FootprintError):
    """Per-frame body input (times, mass points, headings, rolls) or a parameter the reconstruction cannot
    use: mismatched shapes, too few frames, uneven or decreasing times, the two masses on one point, a loop
    that does not close, a parameter out of range."""


@dataclass(frozen=True)
class BodyParams:
    """Angles in radians, times in seconds, frequencies in hertz, lengths in metres; None: from the motion's
    body length (the median hind-to-fore distance)."""

    # Spine
    spine_segments: int = 5  # rotations from the pelvis to the chest, both included (the Rigify wolf's torso
    # chain spine.004 to spine.008)
    max_bend: float = math.radians(60.0)  # the most the spine bends (soft: untouched below half of it); design:
    # beyond, the chest would face a third of the way round from the pelvis
    girdle_depth: float | None = None  # metres the hip and shoulder joints hang under the back's bending line;
    # None: GIRDLE_DEPTH body lengths
    max_flex: float = math.radians(40.0)  # the most the back flexes or extends in pitch (soft, as max_bend);
    # design: a galloping cheetah's back swings through about 60 degrees in all, a dog's less (Hildebrand 1959,
    # J. Mammalogy 40, "Motions of the running cheetah and horse")
    tangent_span: float | None = None  # metres of arc either side over which a girdle's travel direction is
    # taken; None: half the body length (exact on arcs; averages the sway of a step)
    bank_gain: float = 0.5  # of the lean angle atan(a_lat / g) each girdle banks into a turn (vdP97 §2.6; the
    # biped's character.bank_gain)
    bank_window: float = BODY_WINDOW  # seconds the lateral acceleration is averaged over for banking (vdP97
    # §2.6's moving window, orientation.BODY_WINDOW): the instantaneous one swings with every step
    # Head and neck
    lookahead: float = 0.5  # seconds: the head turns toward where the fore mass will be then. Torkos §5 leads
    # the head into the motion; half a second is about one stride of a trotting dog (Alexander 1976's stride
    # 2.3 Fr^0.3 h: 1.4 m at 2 m/s, 0.68 s), and heads turn into a curve ahead of the body (Grasso, Glasauer,
    # Takei & Berthoz 1996, NeuroReport 7, "The predictive brain: anticipatory control of head direction")
    max_head_turn: float = math.radians(70.0)  # the most the head turns from the chest (soft, as max_bend);
    # design: a dog looking back over its shoulder is a pose, not a lead
    neck_yaw_share: float = 0.5  # of the head's turn the neck's base takes (design: the turn spread over the
    # neck rather than snapped at the skull)
    neck_offset: tuple | None = None  # the neck's base from the fore mass, chest frame, metres; None:
    # WOLF_NECK_BASE body lengths
    head_offset: tuple | None = None  # the head's pivot from the fore mass, chest frame, metres; None:
    # WOLF_HEAD body lengths
    head_steady: float = 0.9  # 0-1: the share of the gait's bob (height, pitch, roll) the head cancels.
    # Horses and dogs hold the head steadier in space than the trunk at the trot (Dunbar, Macpherson,
    # Simmons & Zarcades 2008, J. Exp. Biol. 211, "Stabilization and mobility of the head, neck and trunk in
    # horses during overground locomotion"); 0.9 as the walking attributes' head_steady (body/walking.py)
    steady_cutoff: float = 1.0  # hertz: the low-pass that takes the bob out. Stride frequency falls with body
    # size, to about 1 Hz in a walking horse and near 4 Hz in a cat's fast trot (Heglund & Taylor 1988, J.
    # Exp. Biol. 138, "Speed, stride frequency and energy cost per stride: how do they change with body size
    # and gait?"), and the body bobs twice a stride: at 2 Hz and above this filter (gain
    # 1 / (1 + (f / cutoff)^2)^2) passes at most 4 %, while a climb comes through
    # Tail
    tail_segments: int = 4  # joints along the tail (the Rigify wolf's and cat's four tail bones)
    tail_length: float | None = None  # metres; None: WOLF_TAIL_LENGTH body lengths
    tail_frequency: float | None = None  # hertz, the base joint's natural frequency; None: the tail as a
    # uniform rod swinging under gravity about its root, sqrt(3 g / (2 tail_length)) / 2 pi (0.75 Hz for the
    # dog preset's 0.66 m, 1.2 Hz for the cat's, 0.53 Hz for the horse's)
    tail_damping: float = 0.3  # damping ratio; design: the follow-through overshoots by 37 %
    # (exp(-pi zeta / sqrt(1 - zeta^2))) and has settled to a fortieth after two swings
    tail_compliance: float = 0.5  # radians of steady deflection per g of specific force (a free pendulum
    # hangs at atan(a / g): 1); design: a tail is held by its muscles, and at 1 it flails at every step
    tail_tip_lag: float = 0.5  # the tip joint's natural frequency is the base's / (1 + tail_tip_lag), the
    # joints between in proportion; design: the outer tail answers later, a whip's follow-through


@dataclass(frozen=True, eq=False)
class BodyPose:
    """Per frame (N). Rotations are world orientations of body-aligned frames (columns right, forward, up),
    the identity for an animal standing level facing +Y; the tail's are relative to the pelvis."""

    pelvis: np.ndarray  # (N, 3, 3) at the hind mass
    chest: np.ndarray  # (N, 3, 3) at the fore mass
    bend: np.ndarray  # (N,) the chest's yaw relative to the pelvis, radians, positive to the left
    twist: np.ndarray  # (N,) the chest's roll relative to the pelvis, radians, positive: right side down
    flex: np.ndarray  # (N,) the back's flexion, radians: positive rounded (the pelvis pitched up toward the
    # middle of the back, the chest down from it), negative hollowed
    spine: np.ndarray  # (N, spine_segments, 3, 3) from the pelvis (first) to the chest (last), the arch even
    neck: np.ndarray  # (N, 3, 3) the neck's base
    head: np.ndarray  # (N, 3, 3)
    neck_position: np.ndarray  # (N, 3) the neck's base
    head_position: np.ndarray  # (N, 3) the head's pivot
    head_lead: np.ndarray  # (N,) the head's yaw relative to the chest's, radians, positive to the left
    tail: np.ndarray  # (N, tail_segments, 3, 3) each segment relative to the pelvis (the joints before it
    # composed); applied to the tail's rest pose, which trails along -Y
    tail_side: np.ndarray  # (N, tail_segments) each joint's bend, radians, positive: the tip to the right
    tail_up: np.ndarray  # (N, tail_segments) each joint's bend, radians, positive: the tip up
    tail_state: np.ndarray  # (N, tail_segments, 2, 2) per joint, per direction (side, up): (bend, its rate
    # in radians per second); a later bake of the frames from k on continues with tail_start=tail_state[k]


def reconstruct(times, hind, fore, yaw, params: BodyParams = BodyParams(), *, loop: bool = False,
                hind_roll=None, fore_roll=None, tail_start=None) -> BodyPose:
    """The body of a solved quadruped motion (Torkos §5): see the module's docstring.

    times (N,) seconds at even spacing; hind, fore (N, 3) the mass points (pelvis and shoulder girdle
    centres), world metres; yaw (N,) the body's heading from the footprints, used only where the line from
    hind to fore stands nearly upright; hind_roll, fore_roll (N,) optional extra roll of each girdle (the
    gait's, say), added to its banking. loop: the frames are one cycle of a repeating motion including its
    closing frame (the last frame is the next cycle's first, moved on by the cycle's travel): every filter
    wraps round and the tail starts in its periodic steady state. tail_start (tail_segments, 2, 2): the
    tail's state at the first frame (a BodyPose's tail_state), instead of the steady state.
    """
    t, hind, fore, yaw, extra_roll = _checked(times, hind, fore, yaw, hind_roll, fore_roll, loop)
    step = (t[-1] - t[0]) / (len(t) - 1)
    axis = fore - hind
    body_length = float(np.median(np.linalg.norm(axis, axis=1)))
    p = _resolved(params, body_length)
    if loop:
        _check_loop_closes(hind, fore, body_length)
    tail_start = _checked_tail_start(tail_start, p.tail_segments, loop)
    extend = _Extension(t, step, loop)

    reference, pitch = _body_axis(axis, yaw)
    half_bend = _half_bend(_travel(extend, hind, p.tangent_span), _travel(extend, fore, p.tangent_span), p.max_bend)
    pelvis_yaw, chest_yaw = reference - half_bend, reference + half_bend
    hind_roll = _bank(extend, hind, pelvis_yaw, p) + extra_roll[0]
    fore_roll = _bank(extend, fore, chest_yaw, p) + extra_roll[1]
    flex = _soft_limit((body_length - np.linalg.norm(axis, axis=1)) / p.girdle_depth, p.max_flex)
    pelvis = rotation_matrices(pelvis_yaw, pitch + 0.5 * flex, hind_roll)
    chest = rotation_matrices(chest_yaw, pitch - 0.5 * flex, fore_roll)
    bend, twist = _relative_yaw_and_roll(pelvis, chest)
    spine = _spine_chain(pelvis, chest, p.spine_segments)

    lead = _head_lead(extend, fore, chest_yaw, p, body_length)
    neck, head, neck_position, head_position = _neck_and_head(extend, fore, chest, chest_yaw, pitch, fore_roll,
                                                              lead, p, body_length)

    side, up, state = _tail(extend, hind, pelvis, p, tail_start)
    tail = _tail_rotations(side, up)
    return BodyPose(pelvis, chest, bend, twist, flex, spine, neck, head, neck_position, head_position, lead, tail,
                    side, up, state)


# Input -----------------------------------------------------------------------------------------------------


def _checked(times, hind, fore, yaw, hind_roll, fore_roll, loop):
    """The inputs as float arrays, or the error naming the first culprit."""
    t = _array("times", times, 1)
    n = len(t)
    if n < (3 if loop else 2):
        raise RangeError(f"times: {n} frame(s); a body needs at least {3 if loop else 2}"
                         + (" for a loop (a cycle and its closing frame)" if loop else ""))
    if n > MAX_FRAMES:
        raise RangeError(f"times: {n} frames, more than {MAX_FRAMES}")
    arrays = {"hind": (_array("hind", hind, 2), (n, 3)), "fore": (_array("fore", fore, 2), (n, 3)),
              "yaw": (_array("yaw", yaw, 1), (n,))}
    for name, value in (("hind_roll", hind_roll), ("fore_roll", fore_roll)):
        arrays[name] = (np.zeros(n) if value is None else _array(name, value, 1), (n,))
    for name, (value, shape) in arrays.items():
        if value.shape != shape:
            raise BodyInputError(f"{name}: shape {value.shape}, expected {shape} (one per frame of times)")
    for name, value in (("times", t), *((name, value) for name, (value, _) in arrays.items())):
        bad = ~np.isfinite(value)
        if bad.any():
            frame = int(np.argwhere(bad)[0][0])
            raise NonFiniteError(f"{name}: not finite at frame {frame} ({value[frame]})")
    for name in ("hind", "fore"):
        far = np.abs(arrays[name][0]).max(axis=1) > MAX_DISTANCE
        if far.any():
            raise RangeError(f"{name}: beyond {MAX_DISTANCE:g} m from the origin at frame {int(np.argmax(far))}")
    steps = np.diff(t)
    even = (t[-1] - t[0]) / (n - 1)
    if not even > 0 or np.any(np.abs(steps - even) > UNEVEN_TIMES * even):
        frame = int(np.argmax(np.abs(steps - even))) + 1
        raise BodyInputError(f"times: not increasing at an even spacing (frame {frame} at {t[frame]} s, "
                             f"frames {even:.6g} s apart on average)")
    hind, fore = arrays["hind"][0], arrays["fore"][0]
    apart = np.linalg.norm(fore - hind, axis=1)
    if np.any(apart < 1e-6):
        raise BodyInputError(f"hind, fore: on one point at frame {int(np.argmin(apart))}; the body has no axis")
    return t, hind, fore, arrays["yaw"][0], (arrays["hind_roll"][0], arrays["fore_roll"][0])


def _array(name, value, ndim):
    try:
        out = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise BodyInputError(f"{name}: not numbers ({error})") from None
    if out.ndim != ndim:
        raise BodyInputError(f"{name}: {out.ndim} dimension(s), expected {ndim} (shape {out.shape})")
    return out


def _resolved(params: BodyParams, body_length: float) -> BodyParams:
    """The parameters with their None defaults worked out from the body length, each checked."""
    if not isinstance(params, BodyParams):
        raise BodyInputError(f"params: a BodyParams, not {type(params).__name__}")
    p = params
    values = {f.name: getattr(p, f.name) for f in fields(p)}
    values["tangent_span"] = body_length / 2 if p.tangent_span is None else p.tangent_span
    values["neck_offset"] = tuple(np.multiply(WOLF_NECK_BASE, body_length)) if p.neck_offset is None else p.neck_offset
    values["head_offset"] = tuple(np.multiply(WOLF_HEAD, body_length)) if p.head_offset is None else p.head_offset
    values["tail_length"] = WOLF_TAIL_LENGTH * body_length if p.tail_length is None else p.tail_length
    values["girdle_depth"] = GIRDLE_DEPTH * body_length if p.girdle_depth is None else p.girdle_depth
    for name in ("spine_segments", "tail_segments"):
        count = values[name]
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or not 1 <= count <= 64:
            raise BodyInputError(f"params.{name}: {count!r}, expected a whole number from 1 to 64")
    for name in ("neck_offset", "head_offset"):
        offset = np.asarray(values[name], dtype=float) if _numeric(values[name]) else None
        if offset is None or offset.shape != (3,) or not np.all(np.isfinite(offset)):
            raise BodyInputError(f"params.{name}: {values[name]!r}, expected three finite numbers (metres)")
        values[name] = offset
    if np.linalg.norm(values["head_offset"] - values["neck_offset"]) < 1e-6:
        raise BodyInputError("params.head_offset: on the neck's base; the neck has no length")
    # what the computation can use (design), not what looks good
    bounds = {"max_bend": (1e-3, math.pi), "max_flex": (1e-3, math.pi / 2), "girdle_depth": (1e-6, MAX_DISTANCE),
              "tangent_span": (1e-6, MAX_DISTANCE), "bank_gain": (0.0, 10.0),
              "bank_window": (0.0, 60.0), "lookahead": (0.0, 60.0), "max_head_turn": (1e-3, math.pi),
              "neck_yaw_share": (0.0, 1.0), "head_steady": (0.0, 1.0), "steady_cutoff": (1e-3, 1e3),
              "tail_length": (1e-6, MAX_DISTANCE), "tail_damping": (1e-3, 100.0), "tail_compliance": (0.0, 10.0),
              "tail_tip_lag": (0.0, 100.0)}
    if p.tail_frequency is None:
        values["tail_frequency"] = math.sqrt(3.0 * GRAVITY / (2.0 * values["tail_length"])) / (2.0 * math.pi)
    else:
        bounds["tail_frequency"] = (1e-3, 1e3)
    for name, (low, high) in bounds.items():
        value = values[name]
        if not _numeric(value) or np.ndim(value) != 0 or not low <= float(value) <= high:
            raise BodyInputError(f"params.{name}: {value!r}, expected a number from {low:g} to {high:g}")
    return BodyParams(**values)


def _numeric(value):
    try:
        np.asarray(value, dtype=float)
        return True
    except (TypeError, ValueError):
        return False


def _check_loop_closes(hind, fore, body_length):
    travel = hind[-1] - hind[0]
    mismatch = np.linalg.norm((fore[-1] - fore[0]) - travel)
    if mismatch > LOOP_MISMATCH * body_length:
        raise BodyInputError(f"loop: the last frame does not repeat the first moved on by the cycle's travel "
                             f"(fore and hind moved {mismatch:.4g} m apart); give the closing frame")


def _checked_tail_start(tail_start, joints, loop):
    if tail_start is None:
        return None
    if loop:
        raise BodyInputError("tail_start: a loop starts in its own periodic steady state; give one or the other")
    state = _array("tail_start", tail_start, 3)
    if state.shape != (joints, 2, 2):
        raise BodyInputError(f"tail_start: shape {state.shape}, expected {(joints, 2, 2)} (tail joints, side and "
                             f"up, bend and rate)")
    if not np.all(np.isfinite(state)):
        raise NonFiniteError("tail_start: not finite")
    return state


# Extending a motion past its ends --------------------------------------------------------------------------


class _Extension:
    """A motion's per-frame values continued past its first and last frames: a loop by its cycle repeated
    (moved on by the cycle's travel each time); anything else held at its end frames (`hold`), mirrored
    (`mirror`: its trend carried on, what strays from it mirrored, so a filter sees no oscillation made up)
    or carried on at its end velocity (`coast`: a path goes on the way it went). Filters, look-ahead and
    windows read the extension, so nothing pops at the ends."""

    def __init__(self, times, step, loop):
        self.times, self.step, self.loop = times, step, loop
        self.count = len(times)

    def frames(self, seconds):
        return int(math.ceil(seconds / self.step)) + 1

    def times_with(self, before, after):
        return self.times[0] + self.step * np.arange(-before, self.count + after)

    def hold(self, values, before, after):
        values = np.asarray(values, dtype=float)
        index = np.arange(-before, self.count + after)
        if self.loop:
            return self._cycled(values, index)
        return values[np.clip(index, 0, self.count - 1)]

    def mirror(self, values, before, after, trend_frames):
        """Each end's straight-line trend (fitted to its last `trend_frames`) carried on, and what strays
        from it mirrored about the end frame: a climb goes on climbing, a bob is not made up."""
        values = np.asarray(values, dtype=float)
        index = np.arange(-before, self.count + after)
        if self.loop:
            return self._cycled(values, index)
        period = 2 * (self.count - 1)
        folded = index % period
        mirrored = np.where(folded < self.count, folded, period - folded)
        out = values[mirrored]
        span = min(max(trend_frames, 2), self.count)
        for outside, window in ((index < 0, slice(0, span)), (index >= self.count, slice(self.count - span, None))):
            slope, _ = np.polyfit(np.arange(self.count)[window], values[window], 1)
            out = out + np.where(outside, slope * (index - mirrored), 0.0)
        return out

    def coast(self, values, before, after):
        values = np.asarray(values, dtype=float)
        index = np.arange(-before, self.count + after)
        if self.loop:
            return self._cycled(values, index)
        inside = np.clip(index, 0, self.count - 1)
        out = values[inside]
        for end, rate in ((0, values[1] - values[0]), (self.count - 1, values[-1] - values[-2])):
            out = out + np.multiply.outer(np.where(inside == end, index - inside, 0), rate)
        return out

    def _cycled(self, values, index):
        cycle, within = np.divmod(index, self.count - 1)
        return values[within] + np.multiply.outer(cycle, values[-1] - values[0])


# Spine -----------------------------------------------------------------------------------------------------


def _body_axis(axis, yaw):
    """The body's reference heading (N,) and pitch (N,): the hind-to-fore line's, except where the line
    stands nearly upright (a rearing body), where its heading comes from the footprints' yaw."""
    horizontal = np.hypot(axis[:, 0], axis[:, 1])
    line_heading = np.arctan2(-axis[:, 0], axis[:, 1])
    pitch = np.arctan2(axis[:, 2], horizontal)
    level = smoothstep((horizontal / np.linalg.norm(axis, axis=1) - UPRIGHT_NONE) / (UPRIGHT_FULL - UPRIGHT_NONE))
    return yaw + level * wrap_angle(line_heading - yaw), pitch


def _travel(extend: _Extension, points, span):
    """The way (N,) a mass's own path heads around each frame, and how surely (N,) 0-1: the secant of its
    path over `span` metres of (horizontal) arc either side (at the motion's ends, up to the end)."""
    pad = extend.count if extend.loop else 0  # a loop's arc runs on round its cycle; else it stops at the ends
    path = extend.hold(points, pad, pad)
    steps = np.linalg.norm(np.diff(path[:, :2], axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(steps)]) + 1e-9 * span * np.arange(len(path))  # strictly rising
    here = arc[pad:pad + extend.count]
    secant = np.column_stack([np.interp(here + span, arc, path[:, k]) - np.interp(here - span, arc, path[:, k])
                              for k in range(2)])
    travelled = np.hypot(secant[:, 0], secant[:, 1]) / (2.0 * span)
    return np.arctan2(-secant[:, 0], secant[:, 1]), smoothstep((travelled - TRAVEL_NONE) / (TRAVEL_FULL - TRAVEL_NONE))


def _half_bend(hind_travel, fore_travel, max_bend):
    """Half the spine's bend (N,), positive to the left: half the angle from the hind mass's way to the fore
    mass's (on a circle, the arc between them, each girdle tangent to it and the line between the masses
    its chord; the same walking backwards; nothing for a crab's parallel ways), faded where either mass has
    no way or the two part sideways, softly limited to max_bend / 2."""
    (hind_way, hind_sure), (fore_way, fore_sure) = hind_travel, fore_travel
    half = wrap_angle(fore_way - hind_way) / 2  # within +-pi/2; its sign flips only at +-pi/2, faded out
    apart = smoothstep((PIVOT_NONE - np.abs(half)) / (PIVOT_NONE - PIVOT_FULL))
    return _soft_limit(hind_sure * fore_sure * apart * half, max_bend / 2)


def _bank(extend: _Extension, points, heading, p: BodyParams):
    """Roll (N,) into a turn: bank_gain of atan(a_lat / g), the lateral acceleration averaged over the bank
    window (the second difference of position across half of it either side: acceleration weighted by a
    triangle over the window, continuous however the spline's acceleration jumps at knots)."""
    if p.bank_gain == 0.0 or p.bank_window == 0.0:
        return np.zeros(extend.count)
    half = p.bank_window / 2
    pad = extend.frames(half)
    when = extend.times_with(pad, pad)
    path = extend.coast(points, pad, pad)
    t = extend.times

    def at(times):
        return np.column_stack([np.interp(times, when, path[:, k]) for k in range(2)])

    return bank((at(t + half) - 2.0 * at(t) + at(t - half)) / (half * half), heading, p.bank_gain)


def _relative_yaw_and_roll(pelvis, chest):
    """The chest's yaw and roll (N,) relative to the pelvis, in the body frame's Rz Rx Ry order."""
    relative = np.swapaxes(pelvis, 1, 2) @ chest
    return (np.arctan2(-relative[:, 0, 1], relative[:, 1, 1]),
            np.arctan2(-relative[:, 2, 0], relative[:, 2, 2]))


def _spine_chain(pelvis, chest, segments):
    """(N, segments, 3, 3): the pelvis turned toward the chest by equal shares of their relative rotation."""
    if segments == 1:
        return pelvis[:, None].copy()
    axis, angle = axis_angle_between(pelvis, chest)
    between = [pelvis @ rodrigues(axis, share * angle) for share in np.linspace(0.0, 1.0, segments)[1:-1]]
    return np.stack([pelvis, *between, chest], axis=1)


# Head and neck ---------------------------------------------------------------------------------------------


def _head_lead(extend: _Extension, fore, chest_yaw, p: BodyParams, body_length):
    """The head's yaw relative to the chest (N,): toward where the fore mass will be `lookahead` seconds on
    (past the last frame, where it would go on at its last velocity), softly limited to max_head_turn."""
    pad = extend.frames(p.lookahead)
    when = extend.times_with(0, pad)
    path = extend.coast(fore, 0, pad)
    target = np.column_stack([np.interp(extend.times + p.lookahead, when, path[:, k]) for k in range(2)])
    look = target - fore[:, :2]
    toward = wrap_angle(np.arctan2(-look[:, 0], look[:, 1]) - chest_yaw)
    distance = np.hypot(look[:, 0], look[:, 1]) / (LOOK_NEAR * body_length)
    moving = smoothstep(distance - 1.0)  # none within LOOK_NEAR, all from twice as far
    ahead = smoothstep((np.cos(toward) - LOOK_ASIDE_NONE) / (LOOK_ASIDE_FULL - LOOK_ASIDE_NONE))
    return _soft_limit(moving * ahead * toward, p.max_head_turn)  # the weights vanish where toward wraps


def _neck_and_head(extend: _Extension, fore, chest, chest_yaw, pitch, fore_roll, lead, p: BodyParams, body_length):
    """Neck and head rotations (N, 3, 3) and their positions (N, 3). The head faces the chest's heading plus
    its lead; its height, pitch and roll are the chest's with head_steady of the gait's bob taken out (the
    steady low-pass); the neck turns by its share of the lead and pitches to carry the head at that height."""
    neck_base = fore + chest @ p.neck_offset
    reach = p.head_offset - p.neck_offset  # neck base to head, chest frame
    turned = chest @ rotation_matrices(p.neck_yaw_share * lead, 0.0, 0.0)
    carried = neck_base + turned @ reach  # the head with the neck held in the chest's pitch
    height = _steadied(extend, carried[:, 2], p, STEADY_HEIGHT * body_length)
    neck_pitch = _pitch_to_height(turned, reach, height - carried[:, 2])
    neck = turned @ rotation_matrices(0.0, neck_pitch, 0.0)
    head_position = neck_base + neck @ reach
    head = rotation_matrices(chest_yaw + lead, _steadied(extend, pitch, p, STEADY_ANGLE),
                             _steadied(extend, fore_roll, p, STEADY_ANGLE))
    return neck, head, neck_base, head_position


def _steadied(extend: _Extension, values, p: BodyParams, reach):
    """values (N,) with head_steady of their bob taken out: of what the steady low-pass takes out of them,
    softly no more than `reach` (beyond, a rear or a leap is the body's own move, and the head goes with it)."""
    bob = values - _zero_phase_low_pass(extend, values, p.steady_cutoff)
    return values - p.head_steady * _soft_limit(bob, reach)


def _zero_phase_low_pass(extend: _Extension, values, cutoff):
    """A critically damped low-pass run forwards and then backwards (no lag): its kernel is
    (omega / 4)(1 + omega |tau|) exp(-omega |tau|), gain 1 / (1 + (f / cutoff)^2)^2, omega = 2 pi cutoff.
    Past its ends the motion keeps its trend over its last TREND_PERIODS / cutoff seconds with its bob
    mirrored (a loop wraps round), so a climb is followed to the end and no bob is made up there."""
    omega = 2.0 * math.pi * cutoff
    half = int(math.ceil(KERNEL_REACH / (omega * extend.step)))
    x = omega * extend.step * np.abs(np.arange(-half, half + 1))
    kernel = (1.0 + x) * np.exp(-x)
    kernel /= kernel.sum()
    padded = extend.mirror(values, half, half, extend.frames(TREND_PERIODS / cutoff))
    return _convolved(padded, kernel)[2 * half:2 * half + extend.count]


def _pitch_to_height(turned, reach, change):
    """The neck's pitch (N,) about its right axis that lifts the head by `change` (N,): to first order,
    change over how fast pitching lifts the head, softly at most NECK_STEADY. Where the neck stands near
    upright (pitching barely lifts the head, and which way to pitch is undecided) the change fades out
    first, so the pitch never flips."""
    row = turned[:, 2, :]  # world height of each local axis
    b = row[:, 1] * reach[1] + row[:, 2] * reach[2]  # the head's height above the base: a + b cos + c sin
    c = row[:, 2] * reach[1] - row[:, 1] * reach[2]
    # d height / d pitch at no pitch is c: the pitch is change / c where |c| is at least NECK_LEVER of the
    # neck's length, and below fades as change smoothstep(|c| / that) / that, sign of c: continuous, and
    # at most 1.5 change / that^2 per unit of c where the sign turns over
    leverage = np.abs(c) / (NECK_LEVER * np.maximum(np.hypot(b, c), 1e-12))
    fade = np.where(leverage < 1.0, leverage * smoothstep(leverage), 1.0)
    pitch = np.divide(fade * change, c, out=np.zeros_like(change), where=fade > 0.0)
    return _soft_limit(pitch, NECK_STEADY)


# Tail ------------------------------------------------------------------------------------------------------


def _tail(extend: _Extension, hind, pelvis, p: BodyParams, start):
    """Each joint's bends (N, J) to the side and up and its state (N, J, 2, 2), from its damped second-order
    system driven toward -tail_compliance / J times the hind mass's specific force over g in the pelvis
    frame (less its standing value): a push to the right swings the tail left, a rise drops it."""
    joints = p.tail_segments
    acceleration = _acceleration(extend, hind)
    up = np.array([0.0, 0.0, GRAVITY])
    specific = np.einsum("nji,nj->ni", pelvis, acceleration + up) - up  # pelvis frame, 0 standing level
    target = -p.tail_compliance / (GRAVITY * joints) * specific[:, [0, 2]]  # (N, 2): side, up
    outward = np.arange(joints) / (joints - 1) if joints > 1 else np.zeros(1)  # 0 at the root, 1 at the tip
    omegas = 2.0 * math.pi * p.tail_frequency / (1.0 + p.tail_tip_lag * outward)
    state = _second_order(target, extend.step, omegas, p.tail_damping, start, extend.loop)
    return state[..., 0, 0], state[..., 1, 0], state


def _acceleration(extend: _Extension, points):
    """(N, 3) second differences of positions: a loop's wrap round its cycle, else each end's neighbour's."""
    if extend.loop:
        path = extend.coast(points, 1, 1)
        return (path[2:] - 2.0 * path[1:-1] + path[:-2]) / extend.step ** 2
    if extend.count < 3:
        return np.zeros_like(points)
    inner = (points[2:] - 2.0 * points[1:-1] + points[:-2]) / extend.step ** 2
    return np.concatenate([inner[:1], inner, inner[-1:]])


def _second_order(target, step, omegas, zeta, start, periodic):
    """States (N, J, C, 2) (value, rate) of x'' + 2 zeta omega x' + omega^2 (x - target) = 0 for J natural
    frequencies omegas and C channels, target (N, C) per frame, held over each frame interval at the mean of
    its two ends. Exact: with Phi = exp(M step) and Gamma = (I - Phi) e1 (a held target is the steady
    state), x_n = Phi^n x_0 + sum_k Phi^(n-1-k) Gamma u_k, the sum one FFT convolution, Phi^j from the
    closed-form exponential. x_0: `start` (J, C, 2), or at rest at the first target, or (periodic) the state
    the cycle returns to: x_0 = (I - Phi^P)^-1 (the forced state after P = N - 1 intervals)."""
    frames, channels = target.shape
    powers = _exponential_powers(omegas, zeta, step, frames + 1)  # (J, frames + 1, 2, 2): Phi^j
    response = powers[:, :-1, :, 0] - powers[:, 1:, :, 0]  # Phi^j Gamma: (J, frames, 2)
    held = 0.5 * (target[1:] + target[:-1])  # (frames - 1, C)
    forced = np.zeros((len(omegas), frames, 2, channels))
    forced[:, 1:] = _convolved_causal(response[:, :frames - 1], held)
    if periodic:
        first = np.linalg.solve(np.eye(2) - powers[:, frames - 1], forced[:, -1])  # (J, 2, C)
        first = np.swapaxes(first, 1, 2)
    elif start is None:
        first = np.broadcast_to(np.stack([target[0], np.zeros(channels)], axis=-1), (len(omegas), channels, 2))
    else:
        first = np.asarray(start, dtype=float)
    free = powers[:, :frames] @ np.swapaxes(first, 1, 2)[:, None]  # Phi^n x_0: (J, frames, 2, C)
    return np.transpose(forced + free, (1, 0, 3, 2))


def _exponential_powers(omegas, zeta, step, count):
    """exp(M j step) (J, count, 2, 2) for j = 0..count-1 and each omega of omegas (J,), M = [[0, 1],
    [-omega^2, -2 zeta omega]], in closed form: exp(-zeta omega t) (C(t) I + S(t) (M + zeta omega I)) with,
    underdamped, C = cos(w t), S = sin(w t) / w, w = omega sqrt(1 - zeta^2); critically damped C = 1, S = t;
    overdamped cosh and sinh / w, w = omega sqrt(zeta^2 - 1), written with the two decaying exponentials so
    that nothing overflows."""
    omega = np.asarray(omegas, dtype=float)[:, None]
    t = step * np.arange(count)[None, :]
    decay = np.exp(-zeta * omega * t)
    if abs(zeta - 1.0) <= 1e-9:
        even, odd = decay, t * decay
    elif zeta < 1.0:
        w = omega * math.sqrt(1.0 - zeta * zeta)
        even, odd = decay * np.cos(w * t), decay * np.sin(w * t) / w
    else:
        w = omega * math.sqrt(zeta * zeta - 1.0)
        slow, fast = np.exp((w - zeta * omega) * t), np.exp((-w - zeta * omega) * t)
        even, odd = (slow + fast) / 2, (slow - fast) / (2 * w)
    out = np.empty(omega.shape[:1] + (count, 2, 2))
    out[..., 0, 0] = even + zeta * omega * odd  # C I + S (M + zeta omega I), entry by entry
    out[..., 0, 1] = odd
    out[..., 1, 0] = -omega * omega * odd
    out[..., 1, 1] = even - zeta * omega * odd
    return out


def _convolved_causal(kernels, signals):
    """(J, M, 2, C): sum_{k<=m} kernels[j, m - k, a] signals[k, c], for kernels (J, M, 2), signals (M, C),
    by FFT."""
    size = kernels.shape[1]
    length = 1 << int(max(2 * size - 1, 1)).bit_length()
    spectrum = np.fft.rfft(kernels, length, axis=1)[..., None] * np.fft.rfft(signals, length, axis=0)[None, :, None]
    return np.fft.irfft(spectrum, length, axis=1)[:, :size]


def _convolved(signal, kernel):
    """The full convolution of signal (M,) with kernel (K,), by FFT."""
    size = len(signal) + len(kernel) - 1
    length = 1 << int(size - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(signal, length) * np.fft.rfft(kernel, length), length)[:size]


def _tail_rotations(side, up):
    """(N, J, 3, 3): each tail segment relative to the pelvis, its joints' bends composed as one rotation
    vector (about the pelvis's up for side, about its right for up: a tail trailing along -Y lifts its tip
    when turned negatively about +X)."""
    bends = np.stack([-up, np.zeros_like(side), side], axis=-1)  # (N, J, 3) rotation vectors
    total = np.cumsum(bends, axis=1).reshape(-1, 3)
    angle = np.linalg.norm(total, axis=1)
    axis = np.where(angle[:, None] > 1e-15, total / np.maximum(angle, 1e-300)[:, None], [0.0, 0.0, 1.0])
    return rodrigues(axis, angle).reshape(side.shape + (3, 3))


# Measures ---------------------------------------------------------------------------------------------------


MOVING = 0.1  # m/s: a mass slower than this has no direction of travel to measure


def turn_per_frame(rotations):
    """(N - 1, ...) the angle (radians) each of the rotations (N, ..., 3, 3) turns from the frame before."""
    relative = np.swapaxes(rotations[:-1], -1, -2) @ rotations[1:]
    return np.arccos(np.clip((np.trace(relative, axis1=-2, axis2=-1) - 1) / 2, -1, 1))


def motion_turn_per_frame(hind, fore, fps):
    """The motion's own largest frame-to-frame change of direction (radians): of the hind-to-fore line and
    of each mass's travel where it moves at over MOVING. Issue 18 measures the body's keys against it: no
    jump larger than three times this."""
    def turns(vectors):
        unit = vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)
        return np.arccos(np.clip(np.einsum("nk,nk->n", unit[:-1], unit[1:]), -1, 1))

    largest = turns(fore - hind).max()
    for points in (hind, fore):
        steps = np.diff(points, axis=0)
        moving = np.linalg.norm(steps, axis=1) * fps > MOVING
        both = moving[:-1] & moving[1:]
        if both.any():
            largest = max(largest, turns(np.where(moving[:, None], steps, [0.0, 1.0, 0.0]))[both].max())
    return float(largest)


# Small helpers ---------------------------------------------------------------------------------------------


def _soft_limit(angle, limit):
    """The angle itself up to half the limit, then easing (tanh, matching slope) toward the limit."""
    knee = limit / 2.0
    size = np.abs(angle)
    eased = knee + (limit - knee) * np.tanh(np.maximum(size - knee, 0.0) / (limit - knee))
    return np.sign(angle) * np.where(size <= knee, size, eased)
