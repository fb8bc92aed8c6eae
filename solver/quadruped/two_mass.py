"""The quadruped's body: two point masses, hind (pelvis) and fore (shoulders), joined by a spring (Torkos
§4.2.1, Fig. 4), their trajectories optimised together (Torkos §4.3-4.6).

The trajectory has six components: the centre of mass x and the spine vector d = p_fore - p_hind. With
the fore mass's share w_f of the body (and w_h = 1 - w_f the hind's), p_hind = x - w_f d and
p_fore = x + w_h d, so x is their centre of mass by construction; x is ballistic across flights exactly
(spline.py), d moves at constant rate through them. Per unit body mass, per sample:

- physics (Torkos §4.5, E_physics = K_x E_x + K_p1 E_p1 + K_p2 E_p2, here K = 1 each): the non-physical
  part of the leg force each of three points needs (physics.py's cones):
  - the centre of mass, F = a_x - g, from every standing leg (flight, single ... quadruple support);
  - the hind mass, F = w_h (a_hind - g) - F_s, from the standing hind legs;
  - the fore mass, F = w_f (a_fore - g) + F_s, from the standing fore legs;
  with the spring's pull on the hind mass F_s = k_s (|d| - l_0) d / |d| (Torkos eq. 2, k_s per unit body
  mass: Character.spine_stiffness; l_0 the girdles' distance in the rest pose). Each leg pushes along the
  line from its foot to its own mass point, in the COM's cone as in its mass's: the hind legs carry the
  hind mass (Torkos §4.5). With lines to the COM instead (Fig. 6 draws them so) a body on one girdle's
  legs cannot be held at all, as that cone and the mass's meet only along the line between the two feet:
  a bound needed 25 % of body weight of non-physical force, a gallop 12 %;
- comfort (Torkos eq. 4): k (|hip - foot| - l_nom)^2 per stance leg, each leg its own l_nom; a leg's hip
  hangs from its own mass point (its offset across the girdle turned with the body's yaw);
- the l_max barrier per stance leg, as for bipeds (problem.py);
- body collision (Torkos §4.6.2): k_b max(0, ground + r - p_z)^2 for each mass point, r the clearance;
- the back's sideways stiffness (not Torkos's): the spine vector's component across the body's yaw, over its
  rest length, held near zero (SPINE_STRAIGHT).

Quadruped feet stand on their footprint's point (paws and hooves: no toe support point, no heel roll in
the solve).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..character import FORE_FEET, HIND_FEET, Character
from ..core import orientation, physics
from ..core.problem import Problem, Weights, per_leg, samples_last
from ..core.spline import GRAVITY_VECTOR

TRAJECTORY_GRAVITY = np.concatenate([GRAVITY_VECTOR, np.zeros(3)])  # the COM falls; the spine vector does not
QUADRUPED_COMFORT = 40.0  # K_lc per leg (Torkos eq. 4 gives no value). Measured on the dog (12 m tracks, mean
# non-physical force of the COM; hind, fore masses): at the biped's 150, a trot up 15 degrees needed 8.1 %;
# 4.4, 4.6 % and a gallop on the flat 2.0; 4.7, 4.6 %; at 40, 3.2; 1.9, 2.0 % and 1.7; 3.8, 3.5 %: four
# legs' comfort outweighs the physics more than two do. The legs then flex more in a gallop (the shortest
# stance leg 0.50 of 0.74 m against 0.53)
SPINE_STRAIGHT = 10.0  # per second and radian^2: the back resisting a sideways bend off the body's yaw (the
# footprints' heading). Torkos's spring is axial only: nothing held the spine straight, and a bound or pronk
# from standing, whose support is symmetric, buckled it 25 and 14 degrees sideways
FIRM_BARRIER = 1e6  # the l_max barrier's weight a solve continues with where a stance leg ended past l_max: at
# the biped's 1e5 a dog's fore leg pushing off onto a 0.35 m ramp reached 9 mm past its maximal length at a
# trot, 22 mm at a gallop (13 and 7.5 mm within at 1e6). Not from the start: on the flat, where legs stay
# within, 1e6 took a 12-stride trot 28 iterations against 16


@dataclass(frozen=True)
class TwoMassBody:
    """A character's two-mass geometry, body frame (+X right, +Y forward, +Z up), from the character's origin
    (its hip offsets'), which the masses' own COM may stand off (com_from_origin)."""

    hind_legs: np.ndarray  # (2,) indices into character.feet
    fore_legs: np.ndarray  # (2,)
    mass_coefficient: np.ndarray  # (legs,): a leg's mass point is x + c d: -w_f for hind legs, w_h for fore
    girdle_offsets: np.ndarray  # (legs, 3): each hip from its mass point
    spine: np.ndarray  # (3,) the rest spine vector d_0, fore mass minus hind mass
    com_from_origin: np.ndarray  # (3,) the two masses' COM from the character's origin
    fore_share: float
    stiffness: float  # the spring's k_s per unit body mass (Torkos eq. 2)

    @property
    def rest_length(self) -> float:
        return float(np.linalg.norm(self.spine))


def body_of(character: Character) -> TwoMassBody:
    """The mass points at the girdles' centres (the mean of each pair of hips); the COM between them at the
    fore mass's share of the way."""
    feet = list(character.feet)
    hind = np.array([feet.index(f) for f in HIND_FEET])
    fore = np.array([feet.index(f) for f in FORE_FEET])
    hips = character.hip_offsets
    hind_mass, fore_mass = hips[hind].mean(axis=0), hips[fore].mean(axis=0)
    share = character.fore_share
    coefficient = np.empty(len(feet))
    coefficient[hind], coefficient[fore] = -share, 1.0 - share
    mass_of_leg = np.empty((len(feet), 3))
    mass_of_leg[hind], mass_of_leg[fore] = hind_mass, fore_mass
    com = (1.0 - share) * hind_mass + share * fore_mass
    return TwoMassBody(hind, fore, coefficient, hips - mass_of_leg, fore_mass - hind_mass, com, share,
                       character.spine_stiffness)


def _turned(yaw, vectors):
    """Body-frame vectors (L, 3) turned by yaw (S,) about +Z: (S, L, 3)."""
    level = np.zeros_like(yaw)
    return orientation.hip_offsets_in_world(yaw, level, level, vectors)


def _spring(spine, stiffness, rest):
    """The spring's pull on the hind mass per unit body mass (3, S), F_s = k (|d| - l_0) d / |d| (Torkos eq.
    2), from spine vectors d (3, S); with |d| (S,) and d / |d| (3, S)."""
    length = np.maximum(np.sqrt(np.add.reduce(spine * spine, 0)), 1e-9)
    along = spine / length
    return stiffness * (length - rest) * along, length, along


def _yaw(times, track):
    return orientation.body_yaw(times, track.contact, track.liftoff, track.headings)


class TwoMassProblem(Problem):
    """Problem (problem.py) for quadrupeds: the two-mass body's trajectory and residuals. Every track of one
    problem has its hind and fore legs at the same indices (biped.py groups tracks by their feet's order)."""

    dim = 6
    gravity = TRAJECTORY_GRAVITY
    physics_rows = 9  # the COM's, the hind mass's, the fore mass's
    default_weights = Weights(comfort=QUADRUPED_COMFORT)
    firmer_weights = Weights(comfort=QUADRUPED_COMFORT, barrier=FIRM_BARRIER)

    def _leg_columns(self, track, character, times, footprint):
        body = body_of(character)
        legs = footprint.shape[1]
        n = len(times)
        girdle = np.zeros((legs, 3))
        girdle[: len(character.feet)] = body.girdle_offsets
        yaw = _yaw(times, track)
        return {"support": track.positions[footprint], "girdle": _turned(yaw, girdle),
                "sideways": _turned(yaw, np.array([[1.0, 0.0, 0.0]]))[:, 0] / body.rest_length,
                "coefficient": np.tile(per_leg(body.mass_coefficient, legs), (n, 1)),
                "fore_share": np.full(n, body.fore_share), "stiffness": np.full(n, body.stiffness),
                "rest_length": np.full(n, body.rest_length)}

    def _residual_constants(self):
        weights, legs = self.weights, self.legs
        bodies = [body_of(part.character) for part in self.parts]
        self.mass_legs = (bodies[0].hind_legs, bodies[0].fore_legs)
        if any(not (np.array_equal(b.hind_legs, self.mass_legs[0]) and np.array_equal(b.fore_legs, self.mass_legs[1]))
               for b in bodies):
            raise ValueError("the tracks of one two-mass problem need their hind and fore legs at the same indices")
        self.support, self.girdle = samples_last(self.support), samples_last(self.girdle)
        self.coefficient, self.sideways = samples_last(self.coefficient), samples_last(self.sideways)
        row_weight = np.repeat([weights.physics, weights.comfort, weights.barrier, weights.clearance, SPINE_STRAIGHT],
                               [9, legs, legs, 2, 1])
        barrier_rows = np.repeat([False, False, True, False, False], [9, legs, legs, 2, 1])
        self.root_weight = np.sqrt(row_weight[:, None] * np.where(barrier_rows[:, None], self.barrier_dt, self.dt))
        self.standing = physics.standing_faces(self.active)
        # Each mass's cone (two legs: four faces), (faces, mass, S): both projected in one call (evaluate).
        self.standing_masses = np.stack([physics.standing_faces(self.active[mass]) for mass in self.mass_legs], 1)

    def _initial_positions(self, schedule, character):
        """Torkos §4.7: the COM above the supporting footprints at the body's height, the two masses on a
        spine parallel to the footprints' mean direction (their yaw)."""
        body = body_of(character)
        centred = replace(character, hip_offsets=character.hip_offsets - body.com_from_origin)
        com = super()._initial_positions(schedule, centred)
        spine = _turned(_yaw(schedule.knot_times, schedule.track), body.spine[None])[:, 0]
        return np.concatenate([com, spine], axis=1)

    def row_groups(self):
        groups = super().row_groups()
        clearance = groups["clearance"].start
        return {**groups, "clearance": slice(clearance, clearance + 2), "spine": slice(clearance + 2, None)}

    def leg_overreach(self, free):
        """Per track, how far the longest stance leg reaches past its l_max at the samples (metres; <= 0:
        none does)."""
        p, _a = self._states_of(free, slice(None), slice(None))
        leg = p[:3, None] + self.coefficient * p[3:, None] + self.girdle - self.support
        past = np.where(self.reaching, np.sqrt(np.add.reduce(leg * leg, 0)) - self.l_max, -np.inf).max(axis=0)
        out = np.full(self.n_tracks, -np.inf)
        np.maximum.at(out, self.sample_track, past)
        return out

    def mass_points(self, p, rows=None):
        """The hind and fore mass points (2, 3, S) at trajectory positions p (6, S)."""
        share = self._rows("fore_share", rows)
        return np.stack([p[:3] - share * p[3:], p[:3] + (1.0 - share) * p[3:]])

    def evaluate(self, p, a, rows=None, jacobian=False):
        """Weighted residuals (9 + 2L + 3, S) at trajectory positions and accelerations p, a (6, S); with
        jacobian also d r / d p (R, 6, S) and d r / d a of the physics rows (9, 6, S)."""
        x, d = p[:3], p[3:]
        active, support = self._rows("active", rows), self._rows("support", rows)
        coefficient, share = self._rows("coefficient", rows), self._rows("fore_share", rows)
        stiffness, rest = self._rows("stiffness", rows), self._rows("rest_length", rows)
        mass_of_leg = x[:, None] + coefficient * d[:, None]  # (3, L, S)
        leg = mass_of_leg + self._rows("girdle", rows) - support  # hip - foot
        length = np.sqrt(np.add.reduce(leg * leg, 0))
        spring, spine_length, along = _spring(d, stiffness, rest)
        weight = GRAVITY_VECTOR[:, None]
        hind_share = 1.0 - share
        masses = self.mass_points(p, rows)
        # The three points: (required leg force, legs, standing faces). Every leg pushes along the line from
        # its foot to its own mass point, in the COM's term too (see the module's docstring).
        points = [(a[:3] - weight, slice(None), self._rows("standing", rows)),
                  (hind_share * (a[:3] - share * a[3:] - weight) - spring, self.mass_legs[0], None),
                  (share * (a[:3] + hind_share * a[3:] - weight) + spring, self.mass_legs[1], None)]
        to_mass = mass_of_leg - support
        distance = np.maximum(np.sqrt(np.add.reduce(to_mass * to_mass, 0)), 1e-9)
        directions = to_mass / distance
        com = physics.project(points[0][0], directions, points[0][2], jacobian)
        # The two masses on two legs each: one projection of both, side by side along the samples.
        n = p.shape[1]
        both = physics.project(np.concatenate([points[1][0], points[2][0]], axis=1),
                               np.concatenate([directions[:, legs] for _force, legs, _standing in points[1:]], axis=-1),
                               self._rows("standing_masses", rows).reshape(4, -1), jacobian)
        halves = [tuple(value[..., :n] for value in both), tuple(value[..., n:] for value in both)] if jacobian \
            else [both[:, :n], both[:, n:]]
        projected = [com] + halves
        phys = [result[0] if jacobian else result for result in projected]
        stretch = length - self._rows("limit", rows)
        over = self._rows("reaching", rows) & (stretch > 0.0)
        lacks, slopes = [], []
        for mass in masses:
            ground, slope = self.ground_under(mass, rows)
            lacks.append(ground + self._rows("clear", rows) - mass[2])
            slopes.append(slope)
        lack = np.stack(lacks)
        low = lack > 0.0
        root_weight = self._rows("root_weight", rows)
        sideways = self._rows("sideways", rows)  # the body's right across its yaw, over the rest length
        bend = np.add.reduce(sideways * d, 0)  # the spine's sideways lean: about its angle off the body's yaw
        r = np.concatenate(phys + [(length - self._rows("l_nom", rows)) * active, stretch * over, lack * low,
                                   bend[None]])
        r *= root_weight
        if not jacobian:
            return r
        dp = np.zeros((len(r), 6, n))
        da = np.zeros((9, 6, n))
        eye = np.eye(3)[..., None]
        spring_jacobian = eye - (rest / spine_length) * (eye - along[:, None] * along[None])  # d F_s / d d / k
        force_of_a = ((1.0, 0.0), (hind_share, -share * hind_share), (share, share * hind_share))  # d F / d (a_x, a_d)
        spring_sign = (0.0, -1.0, 1.0)
        for k, (result, (_force, legs, _standing), (fx, fd), sign) in enumerate(zip(projected, points, force_of_a,
                                                                                   spring_sign)):
            residual, lam, b, complement = result
            # d r / d D_l = -(lam_l M + b_l r^T) / |D_l| (physics.project), D_l = x + c_l d - foot_l.
            lam_d, b_d, c = lam / distance[legs], b / distance[legs], coefficient[legs]
            rows3 = slice(3 * k, 3 * k + 3)
            for columns, of_leg in ((slice(0, 3), 1.0), (slice(3, 6), c)):
                dp[rows3, columns] = (-np.add.reduce(lam_d * of_leg, 0) * complement
                                      - np.add.reduce(b_d * of_leg, 1)[:, None] * residual[None])
            if sign:
                dp[rows3, 3:] += sign * stiffness * np.einsum("iks,kjs->ijs", complement, spring_jacobian)
            da[rows3, :3] = fx * complement
            da[rows3, 3:] = fd * complement
        unit_leg = leg / np.maximum(length, 1e-9)  # (3, L, S)
        legs = self.legs
        comfort = slice(9, 9 + legs)
        barrier = slice(9 + legs, 9 + 2 * legs)
        dp[comfort, :3] = (unit_leg * active).swapaxes(0, 1)
        dp[comfort, 3:] = (unit_leg * (coefficient * active)).swapaxes(0, 1)
        dp[barrier, :3] = (unit_leg * over).swapaxes(0, 1)
        dp[barrier, 3:] = (unit_leg * (coefficient * over)).swapaxes(0, 1)
        for m, (slope, c) in enumerate(zip(slopes, (-share, hind_share))):
            row = np.concatenate([slope, -np.ones((1, n))]) * low[m]
            dp[9 + 2 * legs + m, :3] = row
            dp[9 + 2 * legs + m, 3:] = c * row
        dp[-1, 3:] = sideways
        dp *= root_weight[:, None]
        da *= root_weight[:9, None]
        return r, dp, da

    def body_pose(self, part, positions, accelerations, yaw, pitch, roll):
        """Per time: the COM, the body's pitch (the spine's against its rest slope), the hips hanging from
        their mass points, the hind and fore mass points (n, 2, 3) and their accelerations."""
        body = body_of(part.character)
        share = body.fore_share
        com, spine = positions[:, :3], positions[:, 3:]
        coefficients = np.array([-share, 1.0 - share])
        points = com[:, None] + coefficients[:, None] * spine[:, None]
        point_accelerations = accelerations[:, None, :3] + coefficients[:, None] * accelerations[:, None, 3:]
        hips = com[:, None] + body.mass_coefficient[:, None] * spine[:, None] + _turned(yaw, body.girdle_offsets)
        spine_pitch = np.arctan2(spine[:, 2], np.hypot(spine[:, 0], spine[:, 1]))
        rest_pitch = np.arctan2(body.spine[2], np.hypot(body.spine[0], body.spine[1]))
        return com, spine_pitch - rest_pitch, hips, points, point_accelerations


def mass_point_forces(body: TwoMassBody, points, accelerations, support, contact):
    """The non-physical force (N, 2, 3) per unit body mass that the hind and fore masses need at sampled
    frames: points and accelerations (N, 2, 3), support points (N, L, 3) and contact (N, L) of the legs
    (Torkos §4.5, with the spring of eq. 2; the report's measure of what the solve minimised)."""
    spring = _spring((points[:, 1] - points[:, 0]).T, body.stiffness, body.rest_length)[0].T
    shares = (1.0 - body.fore_share, body.fore_share)
    out = np.empty(points.shape)
    for m, (legs, share, sign) in enumerate(zip((body.hind_legs, body.fore_legs), shares, (-1.0, 1.0))):
        force = share * (accelerations[:, m] - GRAVITY_VECTOR) + sign * spring
        to_point = points[:, m, None] - support[:, legs]
        directions = to_point / np.linalg.norm(to_point, axis=-1, keepdims=True)
        out[:, m] = physics.nonphysical_force(force, directions, contact[:, legs])
    return out
