"""Quadruped gaits as footfall templates (Torkos §3.3), scaled to a speed by dynamic similarity.

A gait is the phase at which each foot touches down, as a fraction of the stride (a hind foot at 0), and a
duty factor: the fraction of the stride each foot stands. Phases are Hildebrand's (1965, 1977) gait-graph
conventions for the symmetrical gaits (walk, trot, pace) and typical values of the asymmetrical ones
(canter, transverse and rotary gallop, bound, pronk) in Alexander's review (1984, "The gaits of bipedal and
quadrupedal animals", Int. J. Robotics Res. 3(2)). The duty factor falls as speed rises; it is given at the
two ends of the gait's Froude range and interpolated between.

Speed sets the stride through Alexander's dynamic similarity (1976, Nature 261: "Estimates of speeds of
dinosaurs"): stride / hip height = 2.3 Fr^0.3, with Fr = v^2 / (g h). Animals change gait at about the same
Froude numbers (Alexander and Jayes 1983, J. Zool. 201): walk to trot near 0.5, trot to gallop near 2.5;
`auto` picks so.

Track width: a quadruped stands square, each foot under its hip, and as it speeds up places its feet nearer
the midline under its centre of mass; a trotting dog nearly single-tracks (veterinary texts: "as the animal
increases its speed and changes gait ... the legs move toward the center of mass ... single tracking ... the
degree of convergence ... depends on both the speed of the animal and the conformation", Newton and
Nunamaker (eds.), Textbook of Small Animal Orthopaedics 1985, ch. 91 "Normal and abnormal gait"; the Kennel
Club's conformation guide says the same of a fast trot). Neither gives a number, so each gait's width is our
design, measured on the two-mass body (tests/test_quadruped_gaits.py): `width` is the footprints' lateral
offset as a fraction of the hip's, reached at WIDTH_FROUDE and above and eased in from 1 (square) at Froude 0.
With diagonal support each of a trot's masses stands on one foot half a hip width to its side, which pushes
the hind and fore masses apart sideways every step: on the hips' lines a dog's trot at 2 m/s swung the
spine's bend by 8 degrees either way mid-track and the hind-to-fore line's yaw by 4.3, at a quarter of the
width by 2.2 and 1.5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY, QUADRUPED_FEET
from ..errors import FootprintError

STRIDE_COEFFICIENT, STRIDE_EXPONENT = 2.3, 0.3  # Alexander 1976: lambda / h = 2.3 Fr^0.3
WALK_TROT_FROUDE, TROT_GALLOP_FROUDE = 0.5, 2.5  # Alexander and Jayes 1983
WIDTH_FROUDE = WALK_TROT_FROUDE  # a gait's own track width from here on, square (1) at rest, linear between:
# the convergence comes with leaving the walk (design, after the texts above: walking dogs stand square on three
# or four feet, trotting ones converge)


class GaitError(FootprintError):
    """A gait that does not exist, a character it cannot be given to, or a speed it cannot reach."""


@dataclass(frozen=True)
class Gait:
    name: str
    phases: dict  # foot -> touchdown phase in [0, 1), a hind foot at 0
    duty: tuple  # (duty factor at the slowest, at the fastest)
    froude: tuple  # (slowest, fastest) Froude number the gait is used at
    width: float = 1.0  # the footprints' lateral offset as a fraction of the hip's, from WIDTH_FROUDE up

    def duty_at(self, froude: float) -> float:
        """The duty factor at this Froude number, interpolated on log Froude: it falls fastest as a gait
        starts to speed up (linear in Froude, a horse's gallop kept 0.33 from Froude 5 to 8, against the 0.25
        to 0.3 of Clayton's data; a dog's trot at 3 m/s stood for 0.47 of its stride, against 0.35-0.4)."""
        return float(np.interp(np.log(froude), np.log(self.froude), self.duty))


    def width_at(self, froude):
        """The track width as a fraction of the hips' (1: each foot under its hip) at these Froude numbers:
        1 at rest, `width` from WIDTH_FROUDE on (module docstring)."""
        return np.interp(froude, (0.0, WIDTH_FROUDE), (1.0, self.width))


# Track widths (fractions of the hips' width, design; measured in tests/test_quadruped_gaits.py): the walk on
# three or four feet barely sways and stays nearly square; the trot and the pace, each girdle on one foot at a
# time, nearly single-track; the canter and gallops lead with one foot of each pair and land near the midline;
# the bound and the pronk put both feet of a pair down together (no sway to take out) and keep them square.
WALK_WIDTH, TROT_WIDTH, GALLOP_WIDTH = 0.8, 0.25, 0.4
GIRDLE_AT_ENDS = 0.92  # of a leg's standing length: the hip's height at the ends of the longest stance it sweeps
# (design: on the Rigify wolf, horse and cat the girdles' mean height is then 0.83-0.97 of standing, the trots'
# and walks' 0.88-0.95: tests/test_quadruped_gait_quality.py)
STAND_WIDTH = 0.7  # a standing animal's footprints at least this far out: nearly square, its fore paws near
# under its shoulders (design; a stand at a trot's quarter put the wolf's fore paws 6 cm apart under hips 25 cm
# apart; at 0.8 the first trot diagonal swung the body's line 3.1 degrees off the path, at 0.7 2.8)
GAITS = {gait.name: gait for gait in (
    # lateral-sequence walk: LH, LF, RH, RF a quarter stride apart; three or four feet down, never none
    Gait("walk", {"LH": 0.0, "LF": 0.25, "RH": 0.5, "RF": 0.75}, (0.75, 0.55), (0.01, 1.0), WALK_WIDTH),
    # diagonal pairs together; a flight between them once the duty factor is under a half
    Gait("trot", {"LH": 0.0, "RF": 0.0, "RH": 0.5, "LF": 0.5}, (0.50, 0.30), (0.2, 4.0), TROT_WIDTH),
    # lateral pairs together (camels, some dogs and horses)
    Gait("pace", {"LH": 0.0, "LF": 0.0, "RH": 0.5, "RF": 0.5}, (0.50, 0.30), (0.2, 4.0), TROT_WIDTH),
    # three beats, left lead: RH; LH with RF; LF; then the flight
    Gait("canter", {"RH": 0.0, "LH": 0.3, "RF": 0.3, "LF": 0.6}, (0.40, 0.30), (0.8, 5.0), GALLOP_WIDTH),
    # transverse gallop, left lead (horses): the fores in the same order as the hinds
    Gait("gallop", {"RH": 0.0, "LH": 0.1, "RF": 0.4, "LF": 0.5}, (0.35, 0.20), (1.5, 50.0), GALLOP_WIDTH),
    # rotary gallop, left lead (dogs, cats): the fores in the opposite order
    Gait("rotary_gallop", {"RH": 0.0, "LH": 0.1, "LF": 0.4, "RF": 0.5}, (0.35, 0.20), (1.5, 50.0), GALLOP_WIDTH),
    # bound: the hinds together, then the fores together
    Gait("bound", {"LH": 0.0, "RH": 0.0, "LF": 0.5, "RF": 0.5}, (0.35, 0.25), (1.0, 10.0)),
    # pronk (stotting): all four together, then a long flight
    Gait("pronk", {"LH": 0.0, "RH": 0.0, "LF": 0.0, "RF": 0.0}, (0.40, 0.25), (0.5, 5.0)),
)}
GAIT_NAMES = tuple(GAITS) + ("auto",)
LEADING = ("canter", "gallop", "rotary_gallop")  # the gaits with a lead: their templates lead with the left


def mirrored(gait: Gait) -> Gait:
    """The gait on the other lead: every foot's phase given to its mirror image (LH <-> RH, LF <-> RF)."""
    swap = {"LH": "RH", "RH": "LH", "LF": "RF", "RF": "LF"}
    return Gait(gait.name, {swap[foot]: phase for foot, phase in gait.phases.items()}, gait.duty, gait.froude,
                gait.width)
ROTARY = ("dog", "cat")  # whose gallop is rotary; others (horse) gallop transversely


def stance_reach(character) -> np.ndarray:
    """(L,) the longest stance each leg sweeps (metres along the ground): from foot to hip at its maximal
    length, the hip at GIRDLE_AT_ENDS of the leg's standing length, both ends. Longer, the girdle sinks (a
    wolf's trot at 3 m/s swept 73 degrees with its front legs, its shoulders 0.80 of standing) or the rig's
    bones stretch to reach."""
    nominal, longest = character.nominal_lengths, character.max_lengths
    return 2.0 * np.sqrt(np.maximum(longest ** 2 - (GIRDLE_AT_ENDS * nominal) ** 2, 0.0))


def froude(speed: float, hip_height: float) -> float:
    return speed * speed / (GRAVITY * hip_height)


def stride_length(speed: float, hip_height: float) -> float:
    """Alexander 1976: lambda = 2.3 h Fr^0.3."""
    return STRIDE_COEFFICIENT * hip_height * froude(speed, hip_height) ** STRIDE_EXPONENT


def stride_of(gait: Gait, speed: float, character) -> float:
    """The stride this gait takes at this speed (stride_within_reach at the gait's duty factor)."""
    return stride_within_reach(speed, gait.duty_at(froude(speed, character.leg_length_nominal)), character)


def stride_within_reach(speed: float, duty: float, character) -> float:
    """Alexander's stride at this speed, or shorter (a quicker cadence) where a stance of `duty` of it would
    sweep a leg farther than it reaches with its girdle near standing height (stance_reach): Rigify's wolf
    stands on front legs within 2 % of their reach, and at Alexander's stride its shoulders trotted at 0.80
    of standing. (Shortening the stance by the duty factor instead loads the legs harder: the force over a
    stance goes as 1 / duty.)"""
    return min(stride_length(speed, character.leg_length_nominal), float(stance_reach(character).min()) / duty)


def choose(name: str, speed: float, character) -> Gait:
    """The gait called name for this character at this speed (`auto`: by Froude number, as animals choose);
    a GaitError names what is wrong."""
    if not character.is_quadruped:
        raise GaitError(f"quadruped gaits need the four feet {list(QUADRUPED_FEET)}; character "
                        f"{character.name!r} has {list(character.feet)}")
    if name not in GAIT_NAMES:
        raise GaitError(f"unknown gait {name!r}; expected one of {list(GAIT_NAMES)}")
    if not (np.isfinite(speed) and speed > 0):
        raise GaitError(f"speed must be a positive number of m/s, not {speed}")
    h = character.leg_length_nominal
    fr = froude(speed, h)
    if name == "auto":
        name = "walk" if fr < WALK_TROT_FROUDE else "trot" if fr < TROT_GALLOP_FROUDE else \
            "rotary_gallop" if character.name in ROTARY else "gallop"
    gait = GAITS[name]
    if not gait.froude[0] <= fr <= gait.froude[1]:
        low, high = (np.sqrt(f * GRAVITY * h) for f in gait.froude)
        raise GaitError(f"{speed:g} m/s is outside what a {name} of {character.name!r} (hip height {h:.3g} m) "
                        f"can reach: {low:.2f} to {high:.2f} m/s (Froude {gait.froude[0]:g} to {gait.froude[1]:g})")
    return gait

