"""Transition Between Strips (issue 19's speed target): a one-step transition solved and posed for 60 frames,
the numpy part: the starting blend of the bones' local transforms, the feet, the COM's path and the pelvis
optimisation. Under 10 ms per step. The poses are a standing human's (Rigify proportions), the second with
the right foot 0.3 m forward; the blend covers every control of a Rigify human (216 bones: a clip that keys
them all), and, the worst case, all of its 706 pose bones."""

import statistics
import time

import numpy as np

from footprint_locomotion.solver.body.transforms import rotation_z
from footprint_locomotion.solver.stepping import transition

FRAMES = 60
CONTROLS, POSE_BONES = 216, 706  # a generated Rigify human's


def _rigid(rotation, position):
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, position
    return m


def standing(right_foot=(0.0, 0.0)):
    """A standing human facing +Y (hips 0.95 m up, feet 0.2 m apart), its right foot moved by right_foot."""
    upright = np.eye(3)
    feet, hips, knees, ankles, toes = [], [], [], [], []
    for x, shift in ((0.1, (0.0, 0.0)), (-0.1, right_foot)):
        ankle = np.array([x + shift[0], shift[1], 0.08])
        feet.append(_rigid(upright, ankle))
        ankles.append(ankle)
        toes.append(ankle + [0.0, 0.15, -0.06])
        hips.append([x, 0.0, 0.95])
        knees.append([x, 0.02, 0.52])
    upper = np.array([[0, 0, 1.25], [0, 0, 1.6], [0.2, 0, 1.3], [-0.2, 0, 1.3], [0.22, 0, 1.05], [-0.22, 0, 1.05],
                      [0.22, 0, 0.85], [-0.22, 0, 0.85]])
    return transition.Pose(_rigid(rotation_z(0.0), [0.0, 0.0, 1.0]), np.array(feet), np.array(hips),
                           np.array(knees), np.array(ankles), np.array(toes), upper)


def _bones(count, seed=0):
    """Two local poses (location, quaternion, scale; each (2, count, .)) of count bones, a little apart."""
    rng = np.random.default_rng(seed)
    quaternion = rng.normal(size=(2, count, 4))
    quaternion /= np.linalg.norm(quaternion, axis=-1, keepdims=True)
    return rng.normal(scale=0.05, size=(2, count, 3)), quaternion, np.ones((2, count, 3))


def ms_per_step(bones, repeats):
    """The median and the shortest time (ms) of one step's transition solved and its bones blended, over
    FRAMES frames (on a shared machine, other work only ever adds to the shortest)."""
    kinds = ("trunk", "head_neck", "upper_arm", "upper_arm", "forearm", "forearm", "hand", "hand")
    body = transition.Body(transition.segment_masses(kinds), np.full(2, 0.43), np.full(2, 0.44))
    start, end = standing(), standing((0.0, 0.3))
    duration = 1.0
    times = duration * np.arange(1, FRAMES + 1) / (FRAMES + 1)
    location, quaternion, scale = _bones(bones)
    measured = []
    for _ in range(repeats):
        began = time.perf_counter()
        motion = transition.solve(start, end, body, duration, times)
        transition.blend_bases(location, quaternion, scale, motion.weight)
        measured.append(time.perf_counter() - began)
    assert len(motion.steps) == 1
    return 1e3 * statistics.median(measured), 1e3 * min(measured)


def run(repeats=50):
    import bpy  # noqa: F401  (as in Blender and every command line call)

    for bones in (CONTROLS, POSE_BONES):
        median, shortest = ms_per_step(bones, repeats)
        print(f"transition, one step over {FRAMES} frames, {bones} bones blended: {median:.2f} ms per step "
              f"(shortest {shortest:.2f}; target: under 10)")


if __name__ == "__main__":
    run()
