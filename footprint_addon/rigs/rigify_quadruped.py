"""Generated Rigify quadrupeds (Blender's bundled basic quadruped, wolf, cat and horse metarigs, or any rig
generated with Rigify's paw limbs): the four legs found from the rig's own structure, not from a list of
names, so a renamed metarig binds as well.

Rigify's paw limbs (limbs.rear_paw, limbs.front_paw, limbs.paw) make, for an ORG chain thigh, shin, foot,
toe (and a hoof, for a five-bone chain), an IK control named after the third bone (`<foot>_ik`) lying on
the ground along the paw, a heel control (`<foot>_heel_ik`) that rolls the foot about the ball, a second
heel control for five-bone chains (`<toe>_ik`), and the IK/FK switch on `<thigh>_parent`. Every limb with
such a switch and an ORG chain of four or five connected bones is a leg; a rig with three or more of them
is a quadruped (a human has two: its arms' chains end at the hand). Legs are named as the solver's feet by
where their hips stand at rest: the two farther forward are the fore legs (LF, RF), the others the hind
legs (LH, RH); left and right by the `.L`/`.R` suffix, else by the side of the body the hip is on.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .armature import MissingBonesError, copied_frame, upright_rotation

SWITCH = "IK_FK"
SIDE = re.compile(r"^(?P<base>.*?)(?P<suffix>[._-](?:L|R|l|r)(?:\.\d+)?|\.\d+)?$")
MIN_PAW, MAX_PAW = 4, 5  # ORG bones of a paw chain (Rigify's paw limbs take four or five)


def derived(name, tail):
    """Rigify's derived name of an ORG bone: 'ORG-foot.L', '_ik' -> 'foot_ik.L'."""
    match = SIDE.match(name.removeprefix("ORG-"))
    return f"{match['base']}{tail}{match['suffix'] or ''}"


def _side(name):
    suffix = SIDE.match(name)["suffix"] or ""
    return {"l": "L", "r": "R"}.get(suffix[1:2].lower())


def limb_chains(rig):
    """[(switch bone, [ORG chain bone names])] of every Rigify limb whose switch bone carries IK_FK."""
    bones = rig.data.bones
    chains = []
    for pose_bone in rig.pose.bones:
        if SWITCH not in pose_bone:
            continue
        match = SIDE.match(pose_bone.name)
        if not pose_bone.name.removesuffix(match["suffix"] or "").endswith("_parent"):
            continue
        root = f"ORG-{match['base'].removesuffix('_parent')}{match['suffix'] or ''}"
        if root not in bones:
            continue
        chain = [root]
        while len(chain) < MAX_PAW:
            tail = np.array(bones[chain[-1]].tail_local)  # (a generated paw's ORG toe is not connected)
            children = [c for c in bones[chain[-1]].children if c.name.startswith("ORG-")
                        and np.linalg.norm(np.array(c.head_local) - tail) <= 1e-4 * max(bones[chain[-1]].length, 1e-6)]
            if len(children) != 1:
                break
            chain.append(children[0].name)
        chains.append((pose_bone.name, chain))
    return chains


def turns_its_paw(bones, hip):
    """Whether the leg from this hip bone is a Rigify paw whose second IK chain (MCH ..._ik2) turns its
    metatarsus as the leg reaches (limbs.front_paw, rear_paw), whatever controls a mapping names."""
    return f"MCH-{derived(hip, '_ik2')}" in bones


def is_quadruped(chains):
    """Whether an armature's limb_chains make a generated Rigify rig with paw legs (three or more: four, or one
    lost)."""
    return sum(len(chain) >= MIN_PAW for _s, chain in chains) >= 3


def mapping(rig, chains):
    """The binding mapping of a generated Rigify quadruped of these limb_chains (the same keys as an explicit
    mapping, feet LH, RH, LF, RF), or MissingBonesError naming what a leg lacks."""
    bones = rig.data.bones
    legs = [(switch, chain) for switch, chain in chains if len(chain) >= 3 and _paw_like(bones, chain)]
    short = [chain for _s, chain in legs if len(chain) < MIN_PAW]
    if short:
        raise MissingBonesError(f"armature {rig.name!r} (Rigify quadruped): the leg from {short[0][0]!r} ends at "
                                f"{short[0][-1]!r}: its paw bone (the ORG bone after it) is missing")
    if len(legs) != 4:
        raise MissingBonesError(f"armature {rig.name!r} (Rigify quadruped) has {len(legs)} paw legs "
                                f"({', '.join(chain[0] for _s, chain in legs)}), not four")
    upright = upright_rotation(rig)
    hips = {chain[0]: upright @ np.array(bones[chain[0]].head_local) for _s, chain in legs}
    paws = np.mean([upright @ (np.array(bones[c[-1]].tail_local) - np.array(bones[c[-1]].head_local))
                    for _s, c in legs], axis=0)
    facing = math.atan2(-paws[0], paws[1])
    forward = np.array([-math.sin(facing), math.cos(facing), 0.0])
    right = np.array([math.cos(facing), math.sin(facing), 0.0])
    centre = np.mean(list(hips.values()), axis=0)
    ahead = sorted(legs, key=lambda leg: hips[leg[1][0]] @ forward)
    names = {}
    for end, pair in (("H", ahead[:2]), ("F", ahead[2:])):
        sides = [_side(chain[0]) for _s, chain in pair]
        if sorted(s or "" for s in sides) != ["L", "R"]:  # no suffixes: by the side the hip is on
            sides = ["L" if (hips[chain[0]] - centre) @ right < 0 else "R" for _s, chain in pair]
            if sides[0] == sides[1]:
                raise MissingBonesError(f"armature {rig.name!r} (Rigify quadruped): cannot tell left from "
                                        f"right of {pair[0][1][0]!r} and {pair[1][1][0]!r}")
        for side, leg in zip(sides, pair):
            names[side + end] = leg
    out = {"name": "Rigify quadruped", "body": "torso", "feet": {}, "hips": {}, "ankles": {}, "balls": {},
           "heels": {}, "rolls": {}, "switches": {}, "com_offset": [0.0, 0.0, 0.0]}
    for foot in ("LH", "RH", "LF", "RF"):
        switch, chain = names[foot]
        out["feet"][foot] = derived(chain[2], "_ik")
        out["hips"][foot] = chain[0]
        out["ankles"][foot] = chain[2]  # the hock (wrist), where the metatarsus starts
        out["balls"][foot] = chain[-1]  # the paw (hoof) on the ground: head at the ball, tail at the tip
        out["heels"][foot] = chain[-1]  # the paw's back is the sole's back (no heel bone behind it)
        rolls = [derived(chain[2], "_heel_ik")] + ([derived(chain[3], "_ik")] if len(chain) == MAX_PAW else [])
        out["rolls"][foot] = [name for name in rolls if name in bones]
        out["switches"][switch] = {SWITCH: 0.0}
    out["spine"] = spine_controls(rig, forward, hips)
    if "tail" in out["spine"]:
        out["tail_controls"] = tail_controls(rig, out["spine"]["tail"])
    out["frames"] = {}
    for control in [out["spine"].get("neck"), out["spine"].get("head"), *out.get("tail_controls", [])[:1]]:
        frame = control and copied_frame(rig, control)
        if frame is not None:
            out["frames"][control] = frame[0]
            if frame[1] is not None:
                bone, prop, value = frame[1]
                out["switches"].setdefault(bone, {})[prop] = value
    return out


def _paw_like(bones, chain):
    """A leg's chain reaches down to about the ground (its lowest point) rather than ending at a hand that
    hangs: a chain of four or five, or a three-bone chain whose paw is missing but whose `_ik` control is
    a paw's (a foot control on the ground)."""
    if len(chain) >= MIN_PAW:
        return True
    control = bones.get(derived(chain[2], "_ik")) if len(chain) == 3 else None
    return control is not None and abs(control.head_local[2] - control.tail_local[2]) < 1e-4 \
        and bones.get(derived(chain[2], "_heel_ik")) is not None


def spine_controls(rig, forward, hips):
    """The torso's controls the rig has: hips, chest, neck, head and the tail's master control (the
    `_master` control of an ORG chain behind the hind hips), recorded for the spine, head and tail."""
    bones = rig.data.bones
    upright = upright_rotation(rig)
    out = {part: part for part in ("hips", "chest", "neck", "head") if part in bones}
    hind = min(h @ forward for h in hips.values())
    tails = []
    for bone in bones:
        match = re.match(r"^(.*)_master(\.\d+)?$", bone.name)
        org = match and bones.get(f"ORG-{match[1]}{match[2] or ''}")
        if org is not None and (upright @ np.array(org.head_local)) @ forward < hind:
            tails.append(((upright @ np.array(org.head_local)) @ forward, bone.name))
    if tails:
        out["tail"] = max(tails)[1]  # the master nearest the body: the tail's root
    return out


def tail_controls(rig, master):
    """The tail's FK controls from its root to its tip: Rigify's basic tail has each copy the rotation of the
    one before it (the first the master's) in local space, before its own (a curl of the master runs down
    the whole tail)."""
    chain, target = [], master
    while True:
        following = [pose_bone.name for pose_bone in rig.pose.bones if pose_bone.name not in chain and any(
            c.type == "COPY_ROTATION" and c.target == rig and c.subtarget == target and c.mix_mode == "BEFORE"
            and c.owner_space == "LOCAL" and c.target_space == "LOCAL" for c in pose_bone.constraints)]
        if len(following) != 1:
            return chain
        chain.append(following[0])
        target = following[0]
