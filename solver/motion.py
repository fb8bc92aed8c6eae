"""The solved motion: COM, body orientation, hips and feet sampled at any rate, with a quality report."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .character import GRAVITY
from .core import physics
from .track import track_to_json

MOTION_FORMAT = "footprint-motion"


@dataclass
class Motion:
    fps: float
    times: np.ndarray  # (N,)
    com: np.ndarray  # (N, 3)
    com_velocity: np.ndarray
    com_acceleration: np.ndarray
    yaw: np.ndarray  # (N,) body orientation, radians (orientation.py)
    pitch: np.ndarray
    roll: np.ndarray
    hips: np.ndarray  # (N, L, 3)
    feet: np.ndarray  # (N, L, 3) mid-foot sole point
    foot_rotation: np.ndarray  # (N, L, 3, 3)
    toe_pivot: np.ndarray  # (N, L)
    contact: np.ndarray  # (N, L) bool: the foot stands on a footprint
    footprint: np.ndarray  # (N, L) footprint index (time order) or -1
    character: object
    report: dict = field(default_factory=dict)
    solve_seconds: float = 0.0
    track: object = None  # the footprints solved, in time order (a running cycle's: its footprints on the
    # cycle's clock, warm-up steps included)
    solution: object = None  # the optimiser's free knot states, to warm-start a re-solve
    measures: dict = None  # frame_measures: per-frame arrays the report sums up
    body_points: np.ndarray = None  # (N, P, 3) the body's mass points: a quadruped's hind and fore (Torkos
    # §4.2.1); none (P = 0) for a single mass
    body_point_acceleration: np.ndarray = None  # (N, P, 3)

    def __post_init__(self):
        for name in ("body_points", "body_point_acceleration"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros((len(self.times), 0, 3)))

    def to_json(self) -> dict:
        feet = self.character.feet

        def rows(a):
            return np.round(a, 6).tolist()

        return {
            "format": MOTION_FORMAT,
            "version": 1,
            "fps": self.fps,
            "times": rows(self.times),
            "com": rows(self.com),
            "orientation": {"yaw": rows(self.yaw), "pitch": rows(self.pitch), "roll": rows(self.roll)},
            "feet": {f: rows(self.feet[:, i]) for i, f in enumerate(feet)},
            "toe_pivot": {f: rows(self.toe_pivot[:, i]) for i, f in enumerate(feet)},
            "hips": {f: rows(self.hips[:, i]) for i, f in enumerate(feet)},
            "support": [[f for i, f in enumerate(feet) if c[i]] for c in self.contact],
            **({"body_points": {name: rows(self.body_points[:, i]) for i, name in enumerate(BODY_POINTS)}}
               if self.body_points.shape[1] else {}),
            **({"footprints": track_to_json(self.track)["footprints"]} if self.track is not None else {}),
            "character": self.character.to_json(),
            "report": self.report,
        }  # no solve time: the same input gives the same bytes (caches and farms compare outputs)


def support_points(motion: Motion):
    """The point each stance foot pushes on: its toe when the heel is up, its heel while it rolls down
    after a heel strike, else mid-foot."""
    half = 0.5 * motion.character.foot_length
    forward = motion.foot_rotation[..., :, 1]
    toe = motion.feet + half * forward
    heel = motion.feet - motion.character.heel * forward
    pivot = motion.toe_pivot[..., None]
    return np.where(pivot > 0.0, toe, np.where(pivot < 0.0, heel, motion.feet))


POSE = ("com", "com_velocity", "com_acceleration", "yaw", "pitch", "roll", "hips", "feet", "foot_rotation",
        "toe_pivot", "contact", "footprint", "body_points",
        "body_point_acceleration")  # a Motion's arrays with a row per frame, times aside
BODY_POINTS = ("hind", "fore")  # a quadruped's mass points, in body_points' order
PER_FRAME = ("times",) + POSE


def first_non_finite(motion: Motion):
    """(field, frame or None) of the first NaN or infinity in a motion's samples or report, else None: a
    track whose numbers overflow the physics is an input error, never a file of NaN."""
    for name in PER_FRAME:
        values = np.asarray(getattr(motion, name), dtype=float)
        bad = np.flatnonzero(~np.isfinite(values.reshape(len(values), -1)).all(axis=1))
        if bad.size:
            return name, int(bad[0])

    def walk(value, path):
        if isinstance(value, dict):
            return next((hit for k, v in value.items() if (hit := walk(v, f"{path}.{k}"))), None)
        if isinstance(value, (list, tuple)):
            return next((hit for v in value if (hit := walk(v, path))), None)
        if isinstance(value, float) and not np.isfinite(value):
            return path, None
        return None

    return walk(motion.report, "report")


def frames_of(motion: Motion, rows) -> Motion:
    """The motion at some of its frames (rows: indices or a mask)."""
    return replace(motion, **{name: getattr(motion, name)[rows] for name in PER_FRAME}, measures=None)


def frame_measures(motion: Motion, schedule, footprint_rotations, ground_height, terrain=None,
                   footprint_positions=None) -> dict:
    """Per frame, what the quality report sums up (see quality_report): kept with the motion, so a
    re-solve that samples only some frames again measures only those. The footprints' rest poses are
    footprint_rotations (F, 3, 3) and footprint_positions (F, 3; the track's own when not given: legs.soles_on_ground
    raises a footprint on a kink).

    - non_physical_force (N,): |F - proj(F)| / (m g) (physics.py);
    - leg_length (N, L): hip to the point of support; reach (N, L): hip to mid-foot;
    - stance_slip (N, L): how far a stance foot's toe is from its footprint's toe (0 off the ground);
    - com_clearance (N,): the COM's height above ground_height (N,);
    - below_ground (N,): how deep the deepest heel, mid-foot or toe goes below the ground (<= 0: above):
      the terrain, or without one the footprints the foot stands on, left or lands on.
    """
    ch = motion.character
    support = support_points(motion)
    to_com = _pushed_points(motion) - support
    directions = to_com / np.linalg.norm(to_com, axis=-1, keepdims=True)
    residual = physics.nonphysical_force(physics.required_force(motion.com_acceleration), directions, motion.contact)
    tr = schedule.track
    half = 0.5 * ch.foot_length
    # The point the foot pivots on stays on its footprint's: the ball joint (the sole's toe point for the
    # presets), or the back of the heel while the foot rolls down after a heel strike.
    rolling = motion.toe_pivot < 0.0
    reach = np.where(rolling, -ch.heel, half)[..., None]
    lift = np.where(rolling, 0.0, ch.ball_height)[..., None]

    def pivot(position, frame):
        return position + reach * frame[..., :, 1] + lift * frame[..., :, 2]

    fp = np.where(motion.contact, motion.footprint, 0)
    toe_now = pivot(motion.feet, motion.foot_rotation)
    toe_fp = pivot((tr.positions if footprint_positions is None else footprint_positions)[fp], footprint_rotations[fp])
    return {
        **_mass_point_measures(motion, support, ground_height, terrain),
        "non_physical_force": np.linalg.norm(residual, axis=1) / GRAVITY,
        "leg_length": np.linalg.norm(motion.hips - support, axis=-1),
        "reach": np.linalg.norm(motion.hips - motion.feet, axis=-1),
        "stance_slip": np.where(motion.contact, np.linalg.norm(toe_now - toe_fp, axis=-1), 0.0),
        "com_clearance": motion.com[:, 2] - ground_height,
        "below_ground": _depth_below_ground(motion, schedule, terrain, half),
    }


def _pushed_points(motion):
    """(N, L, 3) or (N, 1, 3): the point each leg pushes on, the line of its force from its support: the COM
    for a single mass, a quadruped's leg's own mass point (quadruped/two_mass.py)."""
    if motion.body_points.shape[1] == 0:
        return motion.com[:, None, :]
    from .quadruped.two_mass import body_of

    body = body_of(motion.character)
    return motion.body_points[:, np.where(body.mass_coefficient < 0.0, 0, 1)]


def _mass_point_measures(motion, support, ground_height, terrain):
    """A quadruped's per-frame measures of its hind and fore masses (Torkos §4.5, §4.6.2): the non-physical
    force each needs (per body weight) and their heights above the ground; nothing for a single mass."""
    if motion.body_points.shape[1] == 0:
        return {}
    from .quadruped.two_mass import body_of, mass_point_forces  # the two-mass body's own physics

    forces = mass_point_forces(body_of(motion.character), motion.body_points, motion.body_point_acceleration,
                               support, motion.contact)
    points = motion.body_points
    ground = (ground_height[:, None] if terrain is None
              else terrain.heights(points[..., :2].reshape(-1, 2)).reshape(points.shape[:2]))
    return {"mass_non_physical_force": np.linalg.norm(forces, axis=-1) / GRAVITY,
            "mass_clearance": points[..., 2] - ground}


def quality_report(motion: Motion, schedule, measures, clearance_required) -> dict:
    """Measures of physical and visual plausibility, on the sampled motion itself, from its frame_measures:

    - non_physical_force: mean and peak over the frames, as fractions of body weight, and the largest mean
      over any NONPHYSICAL_WINDOW seconds (worst_second) with where that stretch starts and ends;
    - leg_length: per leg, min and max hip-to-support distance while in stance, against l_max, and the
      largest hip-to-mid-foot distance while the foot is not on a footprint (swing_max: swinging, or at
      its rest place before the first footprint or after the last);
    - com_clearance: lowest COM height above the ground, against the required clearance;
    - stance_slip: the largest movement of a stance foot's toe from its footprint's toe (metres);
    - feet_below_ground: the deepest any foot's heel, mid-foot or toe goes below the ground (metres, 0 when
      none);
    - flight: the largest deviation of the COM's vertical acceleration from -g, and the largest horizontal
      acceleration, as fractions of g, over samples inside flight phases;
    - swing: the quickest swing (a foot from one footprint to its next, unless it is put down again just as
      it stood): its foot, lift-off and landing times, distance and turn, against the shortest a leg can
      plausibly swing in (None without a swing).
    """
    ch = motion.character
    leg_report = {}
    for i, foot in enumerate(ch.feet):
        stance = motion.contact[:, i]
        values, lifted = measures["leg_length"][stance, i], measures["reach"][~stance, i]
        leg_report[foot] = {
            "min": float(values.min()) if values.size else None,
            "max": float(values.max()) if values.size else None,
            "swing_max": float(lifted.max()) if lifted.size else None,
            "max_allowed": float(ch.max_lengths[i]),
            "nominal": float(ch.nominal_lengths[i]),
        }
    t = motion.times
    in_flight = np.zeros(len(t), dtype=bool)
    for start, end in schedule.flight_intervals:
        in_flight |= (t > start) & (t < end)
    a = motion.com_acceleration
    fraction, slip = measures["non_physical_force"], measures["stance_slip"]
    worst, worst_start, worst_end = _worst_stretch(t, fraction, NONPHYSICAL_WINDOW)
    return {
        "non_physical_force": {"mean": float(fraction.mean()), "peak": float(fraction.max()),
                               "worst_second": worst, "worst_second_span": [worst_start, worst_end],
                               "unit": "body weight"},
        "leg_length": leg_report,
        "com_clearance": {"min": float(measures["com_clearance"].min()), "required": float(clearance_required)},
        "stance_slip": float(slip.max()) if slip.size else 0.0,
        "feet_below_ground": float(max(measures["below_ground"].max(), 0.0)),
        "flight": {
            "samples": int(in_flight.sum()),
            "vertical_acceleration_error": float(np.abs(a[in_flight, 2] + GRAVITY).max() / GRAVITY) if in_flight.any() else 0.0,
            "horizontal_acceleration": float(np.linalg.norm(a[in_flight, :2], axis=1).max() / GRAVITY) if in_flight.any() else 0.0,
        },
        "swing": _quickest_swing(schedule, ch),
        **_mass_point_report(measures),
    }


def _mass_point_report(measures):
    """A quadruped's hind and fore masses: the mean and peak non-physical force each needs (body weight) and
    the lowest each comes above the ground."""
    if "mass_non_physical_force" not in measures:
        return {}
    forces, clearance = measures["mass_non_physical_force"], measures["mass_clearance"]
    return {"mass_points": {name: {"non_physical_force": {"mean": float(forces[:, i].mean()),
                                                          "peak": float(forces[:, i].max()), "unit": "body weight"},
                                   "clearance_min": float(clearance[:, i].min())}
                            for i, name in enumerate(BODY_POINTS)}}


NONPHYSICAL_WINDOW = 1.0  # seconds: the stretch of motion the worst mean non-physical force is taken over
# (a stride or two: one impossible step in a long walk stands out, a landing's instant does not)


def _worst_stretch(times, values, window):
    """The largest mean of values (N,) at times (N, in any order) over any `window` seconds, and where that
    stretch starts and ends; over the whole when it is shorter."""
    order = np.argsort(times, kind="stable")
    times, values = times[order], values[order]
    if times[-1] - times[0] <= window:
        return float(values.mean()), float(times[0]), float(times[-1])
    slack = 1e-9 * max(1.0, abs(float(times[-1])))  # a frame's time is a rounded product: 39 / 24 + 1 s...
    summed = np.concatenate([[0.0], np.cumsum(values)])
    starts = np.flatnonzero(times + window <= times[-1] + slack)  # the stretches that fit
    stops = np.searchsorted(times, times[starts] + window + slack, side="right")
    means = (summed[stops] - summed[starts]) / (stops - starts)
    k = int(np.argmax(means))
    return float(means[k]), float(times[starts[k]]), float(times[stops[k] - 1])


SWING_MIN = 0.4  # time units sqrt(l_nom / g): the quickest plausible swing. A leg swung as a free pendulum
# takes 2.6 (half its period); people walk in 1.2-1.7, sprinters swing in about 1.2 (0.35 s), and the
# automatic timing's quickest, a two-footed hop on the spot, takes 0.5 (timing.py).


def _quickest_swing(schedule, character):
    """The report's swing entry: the shortest time any foot spends between two footprints, with how far
    it moves and turns then; a foot put down again just as it stood (a footprint split in two: under 1 mm
    and 1 degree apart) does not swing."""
    tr, legs = schedule.track, schedule.leg_of_footprint
    quickest = None
    for leg in np.unique(legs):  # a handful of legs
        mine = np.flatnonzero(legs == leg)  # in time order
        distances = np.linalg.norm(tr.positions[mine[1:]] - tr.positions[mine[:-1]], axis=1)
        turns = np.abs(np.angle(np.exp(1j * np.diff(tr.headings[mine]))))
        swings = np.flatnonzero((distances >= 1e-3) | (turns >= np.radians(1.0)))
        if not len(swings):
            continue
        durations = tr.contact[mine[swings + 1]] - tr.liftoff[mine[swings]]
        j = int(np.argmin(durations))
        k = swings[j]
        if quickest is None or durations[j] < quickest["seconds"]:
            quickest = {"seconds": float(durations[j]), "foot": str(tr.feet[mine[k]]),
                        "liftoff": float(tr.liftoff[mine[k]]), "contact": float(tr.contact[mine[k + 1]]),
                        "distance": float(distances[k]), "turn_degrees": float(np.degrees(turns[k]))}
    if quickest is not None:
        quickest["plausible_min"] = SWING_MIN * character.time_unit
    return quickest


REACH_SLACK = 0.001  # metres past l_max a stance leg may reach before the report warns
NONPHYSICAL_WARN = 0.1  # body weights: the worst second's mean non-physical force above which the report warns


def report_warnings(report) -> list:
    """Short lines for the artist about what the motion could not do: the optimiser stopped at its
    iteration cap before converging (the motion may be visibly off its optimum); a stance leg reaches past
    l_max (footprints too far apart, or too high, for the character's legs); the legs cannot carry the body
    (not for a stepping motion, whose kinematic COM is the model's: over its worst second, more than
    NONPHYSICAL_WARN of its weight missing on average: the legs held
    within l_max, footprints out of the character's reach in the time given), or a quadruped's hind or
    fore pair its mass (on average over the motion); a standing foot had to slide for its leg to reach (a
    stepping motion's ankle_reach); a foot swings quicker than a leg can (a lift-off too close to the foot's
    next contact: the foot flies)."""
    warnings = []
    optimizer = report.get("optimizer")
    if optimizer is not None and not optimizer["converged"]:
        warnings.append(f"Optimiser stopped after {optimizer['iterations']} iterations, not converged")
    for foot, leg in report["leg_length"].items():
        if leg["max"] is not None and leg["max"] > leg["max_allowed"] + REACH_SLACK:
            warnings.append(f"Leg {foot} reaches {leg['max']:.3f} m standing, past its {leg['max_allowed']:.3f}: "
                            "footprints too far apart for the character")
    force = report["non_physical_force"]
    worst = force.get("worst_second", force["mean"])  # (a report saved before it had one: the mean)
    # A stepping motion's COM is Wu, Medina and Zordan's kinematic model, not an optimised one: its
    # non-physical force (about 0.2 body weight) is the model's, which the footprints cannot mend.
    if worst > NONPHYSICAL_WARN and "stepping" not in report:
        span = force.get("worst_second_span")
        where = "" if span is None else f" from {span[0]:.2f} s to {span[1]:.2f} s"
        warnings.append(f"Non-physical force averages {worst:.2f} body weight{where} ({force['mean']:.2f} over "
                        "the motion): the legs cannot carry the body there; space the footprints closer or give "
                        "the steps more time")
    for point, measures in report.get("mass_points", {}).items():  # a quadruped's hind and fore masses
        mean = measures["non_physical_force"]["mean"]
        if mean > NONPHYSICAL_WARN:
            warnings.append(f"The {point} legs cannot carry the {point} body: non-physical force averages {mean:.2f} "
                            "body weight; give that pair of feet more time on the ground or closer footprints")
    for foot, drawn in (report.get("ankle_reach") or {}).items():
        if drawn["standing"]:
            warnings.append(f"Foot {foot} slides up to {1000 * drawn['most']:.0f} mm on {drawn['standing']} frames it stands "
                            "on, drawn in so the leg does not over-reach (a rig's bones would stretch): the body "
                            "moves too far from its footprint")
    swing = report.get("swing")
    if swing is not None and swing["seconds"] < swing["plausible_min"]:
        turning = f", turning {swing['turn_degrees']:.0f} degrees," if swing["turn_degrees"] >= 1.0 else ""
        warnings.append(f"Foot {swing['foot']} swings {swing['distance']:.2f} m{turning} in {swing['seconds']:.3f} s "
                        f"({swing['liftoff']:.3f} s to {swing['contact']:.3f} s), quicker than a leg can "
                        f"({swing['plausible_min']:.2f} s): lift-off too close to its next contact")
    return warnings


def _depth_below_ground(motion, schedule, terrain, half):
    """(N,): per frame, how far the lowest heel, mid-foot or toe is below the ground (negative: above)."""
    fwd = motion.foot_rotation[..., :, 1]
    points = np.stack([motion.feet - half * fwd, motion.feet, motion.feet + half * fwd])  # heel, mid, toe
    return np.max(ground_under_feet(motion, schedule, terrain, points) - points[..., 2], axis=(0, 2))


def ground_under_feet(motion, schedule, terrain, points):
    """Ground heights (..., N, L) under points (..., N, L, 3) that go with the motion's feet: the terrain
    under each, or without one the footprint its foot stands on, or in a swing the lower of the two it
    goes between (risers unknown)."""
    if terrain is not None:
        return terrain.heights(points[..., :2].reshape(-1, 2)).reshape(points.shape[:-1])
    tr, t = schedule.track, motion.times
    ground = np.full(motion.feet.shape[:2], -np.inf)
    for leg in range(ground.shape[1]):  # a handful of legs
        mine = np.flatnonzero(schedule.leg_of_footprint == leg)
        if mine.size:
            before = np.clip(np.searchsorted(tr.contact[mine], t, side="right") - 1, 0, len(mine) - 1)
            after = np.minimum(before + 1, len(mine) - 1)
            z = tr.positions[mine, 2]
            standing = (t < tr.liftoff[mine][before]) | (t < tr.contact[mine][0])
            ground[:, leg] = np.where(standing, z[before], np.minimum(z[before], z[after]))
    return np.broadcast_to(ground, points.shape[:-1])
