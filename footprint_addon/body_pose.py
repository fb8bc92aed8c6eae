"""The walking attributes' upper body and toes on a rig: solver angles (solver.body.walking, body frame)
turned into local rotations of the rig's chest, head, FK arm and toe controls (any rig whose binding names
them: Rigify, a rig set up by Set up Leg IK, an explicit mapping). Each is a rotation relative to the
bone's parent at rest, so it rides on whatever the body control does; keyed in each bone's own rotation
mode by the bake, followed through Copy Rotation constraints by the preview."""

from dataclasses import dataclass

import numpy as np
from mathutils import Matrix

from ..solver.body import walking
from ..solver.body.transforms import axis_angle_between, quaternion_from_matrix, rodrigues
from ..solver.core.orientation import rotation_matrices
from ..solver.quadruped.reconstruct import BodyParams, BodyPose, reconstruct
from ..solver.quadruped.two_mass import body_of


def rotation_between(a, b):
    """(N, 3, 3) rotations taking unit vector a (3,) onto b (N, 3) along the shortest arc."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    v = np.cross(a, b)
    c = b @ a
    k = np.zeros((len(b), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    return np.eye(3) + k + (k @ k) / np.maximum(1.0 + c, 1e-9)[:, None, None]


def rest_rotation(binding, name):
    """The bone's rest rotation in upright space (the binding's measuring frame)."""
    upright = binding.measurements["upright"]
    return upright @ np.array(binding.rig.data.bones[name].matrix_local, dtype=float)[:3, :3]


def arm_rotations(binding, upper_arm, forearm, arm, forward, elbow):
    """Local rotations (N, 3, 3) of an upper arm pointing along arm (N, 3, upright space) and of its
    forearm bent forward (toward forward (3,)) from it by elbow (N,) radians."""
    ahead = forward - (arm @ forward)[:, None] * arm
    ahead /= np.linalg.norm(ahead, axis=1, keepdims=True)
    fore = np.cos(elbow)[:, None] * arm + np.sin(elbow)[:, None] * ahead
    rest_u, rest_f = rest_rotation(binding, upper_arm), rest_rotation(binding, forearm)
    turn_u = rotation_between(rest_u[:, 1], arm)
    turn_f = rotation_between(rest_f[:, 1], fore)
    return rest_u.T @ turn_u @ rest_u, rest_f.T @ np.swapaxes(turn_u, 1, 2) @ turn_f @ rest_f


def _local(binding, name, turn_up):
    """Local rotations (N, 3, 3) of a bone that turn it by turn_up (N, 3, 3, upright space) about its head."""
    rest = rest_rotation(binding, name)
    return rest.T @ turn_up @ rest


def channels(binding, motion, attributes):
    """Local rotations (N, 3, 3) per bone name: chest, head, arms, toes, for the parts the binding has."""
    align = binding.measurements["align"]  # upright -> body frame
    pose = walking.upper_body(motion, attributes)
    upper = binding.upper_body
    out = {}

    def to_upright(rotations):  # body-frame rotations (N, 3, 3) -> upright space
        return align.T @ rotations @ align

    head = pose.head  # against the chest; a head whose parent copies the body control's rotation (Rigify's
    if binding.frames.get(upper.get("head")) == binding.body:  # follows the torso) turns against the pelvis
        head = pose.chest @ pose.head
    for part, rotations in (("chest", pose.chest), ("head", head)):
        if part in upper:
            out[upper[part]] = _local(binding, upper[part], to_upright(rotations))
    for side, (upper_arm, forearm) in upper.get("arms", {}).items():
        if side not in pose.shoulder:
            continue
        theta = pose.shoulder[side][:, None]
        outward = np.array([-1.0 if side == "L" else 1.0, 0.0, 0.0])
        hang = np.cos(pose.abduction) * np.array([0.0, 0.0, -1.0]) + np.sin(pose.abduction) * outward
        arm = np.cos(theta) * hang + np.sin(theta) * np.array([0.0, 1.0, 0.0])  # body frame
        out[upper_arm], out[forearm] = arm_rotations(binding, upper_arm, forearm, arm @ align,  # (align.T @ v)
                                                     align.T @ [0.0, 1.0, 0.0], pose.elbow[side])
    out.update(toe_channels(binding, motion))
    return out


def toe_channels(binding, motion):
    """Local rotations (N, 3, 3) of the binding's toe controls: bent up as the heel rises (walking.toe_bends), so
    the toes stay on the ground at heel-off instead of going through it."""
    align = binding.measurements["align"]
    bends = walking.toe_bends(motion)
    lateral = np.cross(align.T @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])  # toes up: forward turns toward up
    turn = np.broadcast_to(lateral, (len(bends), 3))
    return {binding.toes[foot]: _local(binding, binding.toes[foot], rodrigues(turn, bends[:, leg]))
            for leg, foot in enumerate(motion.character.feet) if foot in binding.toes}


def rotation_channels(rig, rotations):
    """{(data path, index): (N,) values} that key each bone's local rotations (N, 3, 3) in its own rotation
    mode: quaternions, axis and angle, or Euler angles in its order, continuous from frame to frame."""
    out = {}
    for name, matrices in rotations.items():
        pose_bone = rig.pose.bones[name]
        prefix = f'pose.bones["{name}"].'
        if pose_bone.rotation_mode in ("QUATERNION", "AXIS_ANGLE"):
            values = quaternion_from_matrix(matrices)  # sign-continuous, w first
            if pose_bone.rotation_mode == "AXIS_ANGLE":  # (angle, x, y, z)
                half = np.arccos(np.clip(values[:, 0], -1.0, 1.0))
                axis = values[:, 1:] / np.maximum(np.sin(half), 1e-12)[:, None]
                axis[np.sin(half) < 1e-12] = (0.0, 1.0, 0.0)
                values = np.column_stack([2.0 * half, axis])
                out.update({(prefix + "rotation_axis_angle", k): values[:, k] for k in range(4)})
            else:
                out.update({(prefix + "rotation_quaternion", k): values[:, k] for k in range(4)})
            continue
        eulers, previous = np.empty((len(matrices), 3)), None
        for i, matrix in enumerate(matrices):
            euler = Matrix(matrix.tolist()).to_euler(pose_bone.rotation_mode, *([previous] if previous else []))
            eulers[i], previous = euler, euler
        out.update({(prefix + "rotation_euler", k): eulers[:, k] for k in range(3)})
    return out


# Quadrupeds: the spine, neck, head and tail from the two mass points (solver.quadruped.reconstruct) ---------


@dataclass(frozen=True, eq=False)
class QuadrupedBody:
    """A quadruped rig's body for a motion: what reconstruct made of the mass points, with the parameters
    measured from the rig's rest pose, and per turned bone (root to tip) its world rotation (N, 3, 3), the
    local rotation it ends up with after the rig's own constraints (`final`: what the preview copies) and
    the one keyed under them (`keyed`: what the bake writes)."""

    pose: BodyPose
    params: BodyParams
    parts: dict  # bone -> part: "hips", "chest", "neck", "head", "tail 0", "tail 1", ...
    world: dict
    final: dict
    keyed: dict
    shift: np.ndarray  # (N, 3) world: the body control moved by this from the COM's place puts the rig's
    # girdles' centre of mass (hind and fore weighted as the solver's masses) on the motion's
    girdles: tuple  # ((N, 3), (N, 3)) world: where the rig's hind and fore girdles (the hips' midpoints) are


def quadruped_parts(binding):
    """{bone: part} the bake turns on a quadruped rig, root first: the hips (pelvis) and chest controls, the
    neck, the head and the tail's bones, of those the binding names. A bone that carries the body control
    or a foot control (itself or an ancestor of one) is left alone: its control is placed by itself."""
    bones = binding.rig.data.bones
    carried = set()
    for name in [binding.body, *binding.feet.values()]:
        bone = bones[name]
        while bone is not None:
            carried.add(bone.name)
            bone = bone.parent
    parts = {}
    for part in ("hips", "chest", "neck", "head"):
        name = binding.spine.get(part)
        if name is not None and name not in carried and name not in parts:
            parts[name] = part
    for k, name in enumerate(binding.tail_controls):
        if name not in carried and name not in parts:
            parts[name] = f"tail {k}"
    return parts


def quadruped_params(binding, scale, tail_count):
    """BodyParams measured from the rig's rest pose (world metres, the object's scale `scale`): the neck's
    base and the head's pivot from the fore girdle's centre (the fore hips' midpoint) in the chest's frame,
    the tail's length and joints; and the rest slope of the line from the hind girdle to the fore one."""
    m = binding.measurements
    align, upright, bones = m["align"], m["upright"], binding.rig.data.bones
    hind = 0.5 * (m["hips"]["LH"] + m["hips"]["RH"])
    fore = 0.5 * (m["hips"]["LF"] + m["hips"]["RF"])
    axis = align @ (fore - hind)
    slope = float(np.arctan2(axis[2], np.hypot(axis[0], axis[1])))
    chest = rotation_matrices(0.0, slope, 0.0)
    values = {}
    for key, part in (("neck_offset", "neck"), ("head_offset", "head")):
        name = binding.spine.get(part)
        if name is not None:
            values[key] = tuple(scale * (chest.T @ align @ (upright @ np.array(bones[name].head_local) - fore)))
    if len(values) == 1:  # reconstruct's default for the other would not fit this rig: measure both or none
        values = {}
    if tail_count:
        values["tail_segments"] = tail_count
        values["tail_length"] = scale * sum(bones[name].length for name in binding.tail_controls[:tail_count])
    return BodyParams(**values), slope


def quadruped_turns(binding, motion, scale):
    """reconstruct's body for the motion with the rig's own parameters (quadruped_params), and the world
    turn (N, 3, 3) of the body's middle from the rest pose: halfway from the pelvis's to the chest's, the
    rest slope of the line between the girdles taken out (reconstruct's identity is that line level)."""
    tail = [name for name, part in quadruped_parts(binding).items() if part.startswith("tail")]
    params, slope = quadruped_params(binding, scale, len(tail))
    pose = reconstruct(motion.times, motion.body_points[:, 0], motion.body_points[:, 1], motion.yaw, params)
    axis, angle = axis_angle_between(pose.pelvis, pose.chest)
    middle = pose.pelvis @ rodrigues(axis, 0.5 * angle) @ rotation_matrices(0.0, slope, 0.0).T
    return pose, params, slope, middle


def quadruped_body(binding, motion, turns, body_world, body_head, placement):
    """The spine, neck, head and tail of a solved quadruped motion on its rig. turns: quadruped_turns';
    body_world (N, 3, 3) and body_head (N, 3): the body control's world rotation and head as the bake
    places it (turned by the body's middle, at the COM); placement: the rig object's (translation, rotation,
    scale)."""
    rig, bones = binding.rig, binding.rig.data.bones
    translation, object_rotation, scale = placement
    parts = quadruped_parts(binding)
    pose, params, slope, _middle = turns
    hind, fore = motion.body_points[:, 0], motion.body_points[:, 1]
    unslope = rotation_matrices(0.0, slope, 0.0).T  # the rest pose's line is reconstruct's identity
    align = binding.measurements["align"]
    worlds = {"hips": pose.pelvis, "chest": pose.chest, "neck": pose.neck, "head": pose.head}
    to_armature = object_rotation.T

    def rest(name):
        return np.array(bones[name].matrix_local, dtype=float)[:3, :3]

    posed = {binding.body: to_armature @ body_world}  # armature-space pose rotations of bones with targets
    world = {}
    for name, part in parts.items():
        turn = (pose.pelvis @ pose.tail[:, int(part.split()[1])]) if part.startswith("tail") else worlds[part]
        world[name] = turn @ unslope @ align @ object_rotation @ rest(name)
        posed[name] = to_armature @ world[name]
    final, keyed = {}, {}
    for name in parts:
        parent_rest, parent_pose = _parent_frame(rig, name, posed, binding.frames)
        final[name] = rest(name).T @ parent_rest @ np.swapaxes(parent_pose, -1, -2) @ posed[name]
    for name in parts:
        keyed[name] = _under_copied_rotation(rig, name, final)
    # Where the turned spine puts the girdles (the hips' midpoints) with the body control at the COM, and the
    # shift of the body control that puts their centre of mass on the motion's.
    body = np.tile(np.eye(4), (len(hind), 1, 1))
    body[:, :3, :3] = posed[binding.body]
    body[:, :3, 3] = ((body_head - translation) @ object_rotation) / scale
    chains = _Chains(rig, {binding.body: body}, keyed)
    girdles = []
    for pair in (("LH", "RH"), ("LF", "RF")):
        girdles.append(np.mean([translation + scale * (chains.pose(binding.hips[f])[:, :3, 3] @ object_rotation.T)
                                for f in pair], axis=0))
    share = body_of(motion.character).fore_share
    shift = (1.0 - share) * (hind - girdles[0]) + share * (fore - girdles[1])
    return QuadrupedBody(pose, params, parts, world, final, keyed, shift, (girdles[0] + shift, girdles[1] + shift))


class _Chains:
    """Armature-space pose matrices (N, 4, 4) of bones computed down the hierarchy from the bones whose pose
    is given (`posed`) and the local rotations keyed (`keyed`): a bone copying part of a keyed bone's local
    transform (Rigify's spine: Copy Transforms in local spaces, replacing, at an influence w) turns by w of
    its rotation; other constraints are taken to leave a bone where its parent carries it."""

    def __init__(self, rig, posed, keyed):
        self.rig, self.cache, self.keyed = rig, dict(posed), keyed

    def pose(self, name):
        if name in self.cache:
            return self.cache[name]
        rig = self.rig
        bone, pose_bone = rig.data.bones[name], rig.pose.bones[name]
        rest = np.array(bone.matrix_local, dtype=float)
        if bone.parent is None:
            base = np.array(pose_bone.matrix, dtype=float)[None]
        else:
            base = self.pose(bone.parent.name) @ np.linalg.inv(np.array(bone.parent.matrix_local, dtype=float)) @ rest
        local = self.keyed.get(name)
        for c in pose_bone.constraints:
            if (c.type == "COPY_TRANSFORMS" and c.mix_mode == "REPLACE" and c.owner_space == "LOCAL"
                    and c.target_space == "LOCAL" and c.target == rig and c.subtarget in self.keyed and not c.mute):
                local = _rotation_power(self.keyed[c.subtarget], c.influence)
        if local is not None:
            turn = np.tile(np.eye(4), (len(local), 1, 1))
            turn[:, :3, :3] = local
            base = base @ turn
        self.cache[name] = base
        return base


def _rotation_power(rotations, weight):
    """(N, 3, 3): each rotation's axis kept, its angle times weight (what an influence blends to)."""
    axis, angle = axis_angle_between(np.broadcast_to(np.eye(3), rotations.shape), rotations)
    return rodrigues(axis, weight * angle)


def _parent_frame(rig, name, posed, frames):
    """The rest rotation (3, 3) and pose rotation ((N,) 3, 3, armature space) of the bone's parent: a parent
    copying another bone's world rotation (frames) has that one's; else the nearest ancestor with a pose
    carries the parent as at rest; with none, the parent stays as it is posed now."""
    bones = rig.data.bones
    parent = bones[name].parent
    if parent is None:
        return np.eye(3), np.eye(3)
    parent_rest = np.array(parent.matrix_local, dtype=float)[:3, :3]
    source = frames.get(name)
    if source is not None:
        pose = posed.get(source)
        return parent_rest, (pose if pose is not None else np.array(rig.pose.bones[source].matrix, dtype=float)[:3, :3])
    ancestor = parent
    while ancestor is not None:
        if ancestor.name in posed:
            carried = np.array(ancestor.matrix_local, dtype=float)[:3, :3].T @ parent_rest
            return parent_rest, posed[ancestor.name] @ carried
        ancestor = ancestor.parent
    return parent_rest, np.array(rig.pose.bones[parent.name].matrix, dtype=float)[:3, :3]


def _under_copied_rotation(rig, name, final):
    """The local rotation (N, 3, 3) to key so that the bone ends at final[name] after its own constraints: a
    Copy Rotation in local space before the original (Rigify's tail: each control takes the one before it)
    puts the source's local rotation, as Euler angles with the unused axes zeroed, before the key."""
    out = final[name]
    for constraint in rig.pose.bones[name].constraints:
        if not (constraint.type == "COPY_ROTATION" and constraint.mix_mode == "BEFORE" and not constraint.mute
                and constraint.owner_space == "LOCAL" and constraint.target_space == "LOCAL"
                and constraint.target == rig and constraint.subtarget in rig.pose.bones):
            continue
        source = final.get(constraint.subtarget)
        if source is None:
            source = np.array(rig.pose.bones[constraint.subtarget].matrix_basis, dtype=float)[:3, :3]
        used = (constraint.use_x, constraint.use_y, constraint.use_z)
        order = constraint.euler_order if constraint.euler_order != "AUTO" else (
            rig.pose.bones[name].rotation_mode if len(rig.pose.bones[name].rotation_mode) == 3 else "XYZ")
        copied = _euler_part(np.broadcast_to(source, out.shape), order, used)
        weight = constraint.influence
        if weight != 1.0:  # (a partial copy would blend matrices: not Rigify's; taken as whole or none)
            continue
        out = np.swapaxes(copied, -1, -2) @ out
    return out


def _euler_part(matrices, order, used):
    """(N, 3, 3): the rotations as Euler angles in `order` with the axes not `used` (x, y, z) zeroed, as a
    matrix again (Copy Rotation's reading of its target)."""
    out = np.empty(matrices.shape)
    for i, matrix in enumerate(matrices):
        euler = Matrix(matrix.tolist()).to_euler(order)
        for axis, keep in enumerate(used):
            if not keep:
                euler[axis] = 0.0
        out[i] = np.array(euler.to_matrix())
    return out
