"""Steps written out as a stepping track: the starting stance's footprints, one footprint per step, and a
footprint per pivot of the support foot (the foot turned on the ground, its stance unbroken)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..character import BIPED_FEET, PRESETS
from ..footprints.timing import step_timing
from ..track import STEPPING, make_track


@dataclass(frozen=True)
class PlannedStep:
    foot: int  # 0 L, 1 R
    position: np.ndarray  # (3,) where it lands
    heading: float
    lift: float  # t1
    touch: float  # t2
    pivot: tuple | None = None  # (position, heading) the other foot pivots to during the swing


def swing_time(character, distance) -> float:
    """A step's swing from the distance its foot moves: vdP97's automatic walking timing (timing.py, Fig. 12) for
    footprints half that apart (a foot moves two footprints' distance in a walk), its step time less its
    double stance (from lift-off to the next contact of the same foot)."""
    stance, step = step_timing(0.5 * distance, "walk", character.time_unit, character.leg_length_nominal)
    return float(2.0 * step - stance)


def character_field(character):
    """The track's "character": the preset's name when the character is that preset, else its parameters."""
    if character.name in PRESETS and PRESETS[character.name].to_json() == character.to_json():
        return character.name
    return character.to_json()


def stepping_track(character, stance, steps, start_time: float, end: float, extras=None, terrain=None):
    """The track of a stance at start_time followed by steps (PlannedStep, in time order), standing until end;
    on a terrain (its heights(xy)) the steps' footprints stand on it."""
    poses = [[(stance.positions[foot], stance.headings[foot], start_time)] for foot in range(2)]
    lifts = [[] for _ in range(2)]
    for step in steps:
        lifts[step.foot].append(step.lift)
        poses[step.foot].append((step.position, step.heading, step.touch))
        if step.pivot is not None:
            middle = 0.5 * (step.lift + step.touch)
            lifts[1 - step.foot].append(middle)
            poses[1 - step.foot].append((step.pivot[0], step.pivot[1], middle))
    feet, positions, headings, contact, liftoff = [], [], [], [], []
    for foot in range(2):
        for (position, heading, touch), lift in zip(poses[foot], lifts[foot] + [end]):
            feet.append(BIPED_FEET[foot])
            positions.append(position)
            headings.append(heading)
            contact.append(touch)
            liftoff.append(lift)
    positions = np.array(positions, dtype=float)
    if terrain is not None:
        stepped = ~np.isin(np.arange(len(positions)), [0, len(poses[0])])  # all but the starting stance's
        positions[stepped, 2] = terrain.heights(positions[stepped, :2])
    track = make_track(feet, positions, headings, contact, liftoff, character=character_field(character),
                       extras={"motion": STEPPING, **(extras or {})})
    return track.take(track.time_order())


def joined(first, second):
    """Two stepping tracks as one: `second` starts standing where `first` ends (its starting stance's footprints
    are `first`'s last ones, held on until `second`'s first lift-offs); the first's extras."""
    def each_foot(track, pick):  # per foot, its footprint whose contact pick (argmax, argmin) chooses
        return [int(np.flatnonzero(track.feet == foot)[pick(track.contact[track.feet == foot])]) for foot in BIPED_FEET]

    last, starting = each_foot(first, np.argmax), each_foot(second, np.argmin)
    liftoff = first.liftoff.copy()
    liftoff[last] = second.liftoff[starting]
    rest = np.setdiff1d(np.arange(len(second)), starting)
    track = make_track(np.concatenate([first.feet, second.feet[rest]]),
                       np.concatenate([first.positions, second.positions[rest]]),
                       np.concatenate([first.headings, second.headings[rest]]),
                       np.concatenate([first.contact, second.contact[rest]]),
                       np.concatenate([liftoff, second.liftoff[rest]]), character=first.character, extras=first.extras)
    return track.take(track.time_order())
