"""An original action's upper body layered over a re-solved walk (issue 20, item 4): which bones of a rig are the
upper body, and the original's F-curves of those bones as an action in an NLA strip of its own above the bake's.

The upper body is what hangs below the body control (and the binding's chest, neck, head and arms) and what the
arms and eyes reach for (IK targets and poles, aim targets), less everything that carries or moves the body or a
leg: the body control, the foot controls and the hip bones and every bone they follow (parents, constraint
targets, parent switches with weight), each leg from its hip bone up to the body control and what hangs from it
(a Rigify human's pelvis and lower spine, with the legs' IK/FK switch bones), and the bones whose properties
drive those (through the rig's drivers). Keys of those would move the legs or the body off the bake. On a Rigify
human the upper body is the chest, the upper spine, neck, head, face, shoulders, the arms' FK and IK controls,
hands and fingers.
"""

import math
import re
from collections import defaultdict
from dataclasses import dataclass

import bpy

from . import animation, ownership

UPPER_KEY = "footprint_extracted_upper_body"  # on the layer's action: the track it was layered for
UPPER_TRACK = "Original upper body: {}"  # the NLA track of the layer, after the track's name
REACHING = ("IK", "DAMPED_TRACK", "TRACK_TO", "LOCKED_TRACK")  # constraints that reach for a control: an IK
# chain's target and pole, an aim's target (Rigify's hand_ik, upper_arm_ik_target, eyes)
BONE_PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]')


def bone_of(data_path):
    """The bone an animation or driver path is on (pose.bones["name"]...), else None."""
    match = BONE_PATH.match(data_path)
    return None if match is None else re.sub(r"\\(.)", r"\1", match.group(1))


class _Bones:
    """A rig's bones as plain dicts: parents, children, and what each one's active constraints read (evaluated,
    so driven parent-switch weights count as the rig has them now). Walking Blender's children_recursive for a
    thousand bones costs seconds; these walks cost milliseconds."""

    def __init__(self, rig, depsgraph):
        self.rig = rig
        self.parent = {b.name: b.parent.name if b.parent else None for b in rig.data.bones}
        self.children = defaultdict(list)
        for name, parent in self.parent.items():
            self.children[parent].append(name)
        self.pose = rig.evaluated_get(depsgraph).pose.bones

    def below(self, names):
        """The bones and every bone hanging from them."""
        found, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo += self.children[name]
        return found

    def above(self, name):
        """The bone and every bone it hangs from, nearest first."""
        chain = []
        while name is not None:
            chain.append(name)
            name = self.parent[name]
        return chain

    def reads(self, name, kinds=None):
        """The rig's bones that the bone's active constraints (of the kinds given, else all) read: targets and
        poles, an Armature constraint's targets of some weight."""
        found = []
        for constraint in self.pose[name].constraints:
            if constraint.mute or constraint.influence == 0.0 or (kinds and constraint.type not in kinds):
                continue
            pairs = [(constraint, "target", "subtarget"), (constraint, "pole_target", "pole_subtarget")]
            pairs += [(t, "target", "subtarget") for t in getattr(constraint, "targets", ()) if t.weight > 0.0]
            found += [getattr(owner, sub) for owner, target, sub in pairs
                      if _is(getattr(owner, target, None), self.rig)]
        return [bone for bone in found if bone in self.parent]

    def sources(self, names):
        """Everything the bones follow: their parents and constraint targets, and theirs, to the end."""
        found, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo += [n for n in [self.parent[name], *self.reads(name)] if n is not None]
        return found

    def driving(self, names):
        """The bones whose custom properties or transforms drive a property of one of the bones (the rig's
        drivers: Rigify's IK/FK switches)."""
        anim = self.rig.animation_data
        found = set()
        for driver in (anim.drivers if anim else ()):
            if bone_of(driver.data_path) in names:
                for variable in driver.driver.variables:
                    for target in variable.targets:
                        if _is(target.id, self.rig):
                            read = (bone_of(target.data_path or ""), target.bone_target)
                            found |= {bone for bone in read if bone in self.parent}
        return found


def _is(block, rig):
    """Whether a (maybe evaluated) data-block is the rig."""
    return block is not None and getattr(block, "original", block) == rig


def upper_body_bones(binding, depsgraph):
    """The names of the binding's rig's upper-body bones (see the module's docstring)."""
    bones = _Bones(binding.rig, depsgraph)
    body = binding.body
    legs = [*binding.hips.values(), *binding.feet.values(), *binding.toes.values()]
    lineage = []  # each leg from its hip bone up to, not including, the body control
    for hip in binding.hips.values():
        chain = bones.above(hip)
        lineage += chain[:chain.index(body)] if body in chain else [hip]
    lower = bones.sources([body, *legs]) | bones.below([*lineage, *legs])
    lower |= bones.driving(lower)
    named = binding.upper_body
    candidates = bones.below([body, *(named[part] for part in ("chest", "neck", "head") if part in named),
                              *(bone for pair in named.get("arms", {}).values() for bone in pair)])
    for name in candidates - lower:  # what hangs from each reached control, up to what the legs or body follow
        for target in bones.reads(name, REACHING):
            chain = bones.above(target)
            candidates |= bones.below(next((chain[:k] for k, n in enumerate(chain) if n in lower), chain))
    return candidates - lower


@dataclass
class Layer:
    """An action and its slot (Blender 4.4+; else None), as animation.replace_strip takes them, and how many
    F-curves it plays."""

    action: object
    slot: object
    curves: int


def upper_body_action(rig, action, slot_identifier, bones):
    """A copy of the action keeping only the F-curves of the bones (its keys, handles, modifiers as they are),
    for the slot the rig played (slot_identifier), its range whole frames so a strip plays it at its own
    frames; a Layer, or None when the action animates none of them (nothing is made then)."""
    copy = action.copy()
    for key in list(copy.keys()):  # (the original's marks: a bake's owner, a step example)
        del copy[key]
    copy.name = f"{action.name} upper body ({rig.name})"
    copy.use_fake_user = False
    slot = None
    if animation.SLOTTED:
        from bpy_extras import anim_utils

        slot = copy.slots.get(slot_identifier) if slot_identifier else None
        if slot is None:  # (extracted before slots: the first for an object)
            slot = next((s for s in copy.slots if s.target_id_type in {"OBJECT", "UNSPECIFIED"}), None)
        bag = None if slot is None else anim_utils.action_get_channelbag_for_slot(copy, slot)
        fcurves, groups = (None, None) if bag is None else (bag.fcurves, bag.groups)
    else:
        fcurves, groups = copy.fcurves, copy.groups
    kept = 0
    for fcurve in list(fcurves or ()):
        if bone_of(fcurve.data_path) in bones:
            kept += 1
        else:
            fcurves.remove(fcurve)
    if not kept:
        bpy.data.actions.remove(copy)
        return None
    for group in [g for g in groups if len(g.channels) == 0]:
        groups.remove(group)
    first, last = copy.frame_range
    copy.use_frame_range = True
    copy.frame_start, copy.frame_end = math.floor(first), max(math.ceil(last), math.floor(first) + 1)
    return Layer(copy, slot, kept)


def layer_upper_body(context, rig, coll, action, slot_identifier, bones):
    """The action's upper body (upper_body_action) in an NLA strip on a track of its own above the rig's other
    strips, replacing the one layered for this track before (its track reused in place); Replace at full
    influence, so the upper-body bones take the original's values and nothing else changes. Returns (strip,
    how many F-curves it plays), or (None, 0) when the action keys no upper-body bone (an earlier layer of the
    track then goes)."""
    layer = upper_body_action(rig, action, slot_identifier, bones)
    made = None if layer is None else layer.action

    def earlier(block):
        return block != made and ownership.owned(block, UPPER_KEY, coll)

    if layer is None:
        _remove_strips(rig, earlier)
        return None, 0
    made[UPPER_KEY] = coll
    _track, strip = animation.replace_strip(rig, layer, UPPER_TRACK.format(coll.name), f"{coll.name} upper body",
                                            made.frame_start, context.view_layer, earlier)
    return strip, layer.curves


def _remove_strips(rig, predicate):
    """The rig's strips whose actions satisfy the predicate (their actions too when unused, and their NLA tracks
    when that empties them)."""
    anim = rig.animation_data
    for track in list(anim.nla_tracks if anim else ()):
        doomed = [strip for strip in track.strips if strip.action is not None and predicate(strip.action)]
        for strip in doomed:
            action = strip.action
            track.strips.remove(strip)
            if action.users == 0:
                bpy.data.actions.remove(action)
        if doomed and len(track.strips) == 0:
            anim.nla_tracks.remove(track)
