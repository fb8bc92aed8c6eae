"""Footprints Along Curve for quadrupeds (issue 18 point 3; Torkos 1998 §3.4 footprints along a path, §6
jumps): a gait at a speed along a Bezier curve, every foot under its hip as the body follows the curve; on
terrain meshes, footprints on them and a flight of the gait's own kind over each gap and obstacle the
curve crosses; a speed that rises walks, trots and gallops in one track; bad input refused by name, the
scene unchanged. Measured on the scene with Blender's own ray casts and curve evaluation."""

import importlib
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from mathutils import geometry

from blender_scenes import bezier_line, footprint_objects, local_axes, raycast_down
from scene_state import snapshot

MM = 1e-3
G = 9.81


@pytest.fixture
def modules(addon):
    def module(name):
        return importlib.import_module(f"{addon}.{name}")

    return module


def dense_path(obj, resolution=4000):
    """The curve evaluated finely by Blender (mathutils' Bezier interpolation): plan points, arc lengths,
    headings of the tangent (0 along +Y, counter-clockwise)."""
    spline, m = obj.data.splines[0], obj.matrix_world
    pts = spline.bezier_points
    samples = []
    for a, b in zip(pts[:-1], pts[1:]):
        seg = geometry.interpolate_bezier(m @ a.co, m @ a.handle_right, m @ b.handle_left, m @ b.co, resolution)
        samples += seg if not samples else seg[1:]
    xy = np.array([tuple(v)[:2] for v in samples])
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(xy, axis=0), axis=1))])
    tangent = np.gradient(xy, axis=0)
    return xy, arc, np.arctan2(-tangent[:, 0], tangent[:, 1])


def box(name, x, y, z, collection):
    """A box spanning the ranges x, y, z (world metres)."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=[(lo + hi) / 2 for lo, hi in (x, y, z)])
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = [hi - lo for lo, hi in (x, y, z)]
    for c in obj.users_collection:
        c.objects.unlink(obj)
    collection.objects.link(obj)
    bpy.context.view_layer.update()
    return obj


def ground(gap=(4.0, 4.8), obstacle=(9.0, 9.4, 0.3)):
    """A terrain collection: two slabs (top at z = 0) with a gap between them along +Y, and a box on the second."""
    coll = bpy.data.collections.new("Ground")
    bpy.context.scene.collection.children.link(coll)
    box("Slab A", (-4.0, 4.0), (-3.0, gap[0]), (-0.2, 0.0), coll)
    box("Slab B", (-4.0, 4.0), (gap[1], 20.0), (-0.2, 0.0), coll)
    if obstacle:
        box("Box", (-2.0, 2.0), obstacle[:2], (0.0, obstacle[2]), coll)
    return coll


def feet_hips(character, objs):
    return character.hip_offsets[[character.feet.index(o.footprint.foot) for o in objs]]


def heading_of(obj):
    toe = local_axes(obj)[1]
    return float(np.arctan2(-toe[0], toe[1]))


def groups(objs):
    """The touchdowns in time order, simultaneous ones together: [(time, {feet})]."""
    out = []
    for o in sorted(objs, key=lambda o: o.footprint.contact):
        if out and abs(out[-1][0] - o.footprint.contact) < 1e-4:
            out[-1][1].add(o.footprint.foot)
        else:
            out.append((o.footprint.contact, {o.footprint.foot}))
    return out


def follows(phases, sequence):
    """Do the touchdown groups come in the template's cyclic order?"""
    cycle = [{f for f, p in phases.items() if p == phase} for phase in sorted(set(phases.values()))]
    start = [i for i, group in enumerate(cycle) if group == sequence[0]]
    return bool(start) and all(sequence[k] == cycle[(start[0] + k) % len(cycle)] for k in range(len(sequence)))


def test_a_dog_trots_along_a_bezier_s_curve_every_foot_under_its_hip(modules, clean):
    """A Bezier S-curve (three points, automatic handles), a dog trotting at 2.5 m/s and filling it: the body
    follows the curve (Blender's own evaluation of it, 4000 points a segment) at 2.5 m/s from its first point,
    and each footprint lies under its hip where the body passes at mid-stance, turned with the tangent:
    measured 0.10 mm and 0.007 degrees off at most; the speed along the curve from the footprints alone
    within 0.08 %; the body's last mid-stance within a stride of the curve's end, not past it. Mid-gait from
    end to end (Start Standing and Stop Standing off), so the body keeps its speed throughout; "under its hip"
    across the path is at the trot's track width (gaits.Gait.width_at)."""
    dog = modules("solver.character").preset("dog")
    gaits = modules("solver.quadruped.gaits")
    curve = bezier_line("S", [(-3.0, -4.0, 0.0), (1.0, 0.0, 0.0), (-2.0, 4.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=curve.name, character="dog", quadruped_gait="trot",
                                                  speed=2.5, stand_start=False, stand_stop=False) == {"FINISHED"}
    objs = footprint_objects()
    assert {o.footprint.foot for o in objs} == set(dog.feet) and len(objs) >= 20
    xy, arc, heading = dense_path(curve)
    mid = np.array([0.5 * (o.footprint.contact + o.footprint.liftoff) for o in objs])
    along = 2.5 * mid
    body = np.column_stack([np.interp(along, arc, xy[:, k]) for k in range(2)])
    turn = np.interp(along, arc, np.unwrap(heading))
    width = gaits.GAITS["trot"].width_at(gaits.froude(2.5, dog.leg_length_nominal))
    hips = feet_hips(dog, objs) * [width, 1.0, 1.0]
    right = np.column_stack([np.cos(turn), np.sin(turn)])
    forward = np.column_stack([-np.sin(turn), np.cos(turn)])
    expected = body + hips[:, :1] * right + hips[:, 1:2] * forward
    placed = np.array([tuple(o.location)[:2] for o in objs])
    off = np.linalg.norm(placed - expected, axis=1)
    assert off.max() <= 0.5 * MM, off.max()
    errors = np.degrees(np.abs(np.angle(np.exp(1j * (np.array([heading_of(o) for o in objs]) - turn)))))
    assert errors.max() <= 0.05, errors.max()
    assert np.ptp(turn) > 1.0  # it does turn, both ways
    assert all(abs(o.location.z) <= 1e-6 for o in objs)  # no terrain: level at the curve's start
    gaits = modules("solver.quadruped.gaits")
    stride = gaits.stride_of(gaits.GAITS["trot"], 2.5, dog)
    assert arc[-1] - stride <= along.max() <= arc[-1]
    # The speed from the footprints alone: the body each stands under, placed on the curve, per unit time.
    toe_right = np.column_stack([np.cos([heading_of(o) for o in objs]), np.sin([heading_of(o) for o in objs])])
    toe_fwd = np.column_stack([-toe_right[:, 1], toe_right[:, 0]])
    under = placed - hips[:, :1] * toe_right - hips[:, 1:2] * toe_fwd
    place = arc[np.argmin(np.linalg.norm(xy[None] - under[:, None], axis=-1), axis=1)]
    worst = 0.0
    for foot in dog.feet:
        rows = [i for i, o in enumerate(objs) if o.footprint.foot == foot]
        speed = np.diff(place[rows]) / np.diff(mid[rows])
        assert np.abs(speed / 2.5 - 1.0).max() <= 0.03, (foot, speed)
        worst = max(worst, np.abs(speed / 2.5 - 1.0).max())
    print(f"\nS-curve trot: footprint to hip {off.max() * 1e3:.3f} mm, heading {errors.max():.3f} degrees, "
          f"speed {worst * 100:.3f} %")


def test_a_gap_and_an_obstacle_on_the_terrain_are_flown_the_gaits_own_way(modules, clean):
    """Two slabs 0.8 m apart and a 0.3 m box on the second (a dog's hips are 0.71 m: a quarter is 0.18 m; the
    box, 0.4 m long, is shorter than its body): along a gently curving Bezier the trot's footprints stand on
    the slabs (z within 1 mm of Blender's own ray cast, tilted with the mesh), none over the gap or on the
    box (heel, middle and toe all on a slab's top), and a flight spans each: every footprint before it lifted
    before any after it lands. Solved, both flights are ballistic (g within 2 %)."""
    coll = ground()
    curve = bezier_line("Path", [(0.0, 0.0, 0.5), (0.6, 7.0, 0.5), (0.0, 14.0, 0.5)])
    assert bpy.ops.footprint.generate_along_curve(curve=curve.name, character="dog", quadruped_gait="trot",
                                                  speed=2.5, terrain_collection=coll.name) == {"FINISHED"}
    track_coll = bpy.context.scene.footprint.active_track
    assert track_coll.footprint_track.terrain_collection == coll
    dog = modules("solver.character").preset("dog")
    objs = footprint_objects()
    ys = np.array([o.location.y for o in objs])
    for o in objs:
        location, normal = raycast_down(o.location.x, o.location.y)
        assert np.linalg.norm(np.array(o.matrix_world.translation) - location) <= MM, o.name
        toe = local_axes(o)[1][:2] / np.linalg.norm(local_axes(o)[1][:2])
        for a in (-dog.foot_length / 2, 0.0, dog.foot_length / 2):  # the whole foot on a slab's top
            hit, _normal = raycast_down(*(np.array(o.location)[:2] + a * toe))
            assert abs(hit[2]) <= MM, (o.name, a, hit)
    half = dog.foot_length / 2
    flights = []
    for start, end in ((4.0, 4.8), (9.0, 9.4)):  # the gap, the box
        assert not np.any((ys > start - half) & (ys < end + half))
        takeoff = max(o.footprint.liftoff for o, y in zip(objs, ys) if y < start)
        landing = min(o.footprint.contact for o, y in zip(objs, ys) if y > end)
        assert landing > takeoff + 0.1
        flights.append((takeoff, landing))
    # The track solves; both flights ballistic.
    scene_io, biped = modules("footprint_addon.scene_io"), modules("solver.biped")
    motion = biped.solve(scene_io.read_track(track_coll), scene_io.character_of(track_coll), fps=120)
    assert np.isfinite(motion.com).all()
    for takeoff, landing in flights:
        inside = (motion.times > takeoff + 1e-3) & (motion.times < landing - 1e-3)
        assert inside.sum() >= 0.9 * (landing - takeoff) * 120 and not motion.contact[inside].any()
        falling = motion.com_acceleration[inside]
        assert np.all(np.abs(falling[:, 2] + G) <= 0.02 * G) and np.all(np.abs(falling[:, :2]) <= 0.02 * G)
    print(f"\nflights: {', '.join(f'{b - a:.3f} s' for a, b in flights)}; non-physical force "
          f"{motion.report['non_physical_force']['mean']:.3f}")


def test_a_platform_is_jumped_onto_and_off_as_torkos_ramp(modules, clean):
    """Torkos §6 from meshes: a platform 0.3 m high and 4 m long (longer than a dog's body, its risers higher
    than a quarter of its hips): two ledges, each flown (onto it, off it) at a trot; every footprint on the
    floor or on the platform's top, none within half a foot and 2 cm of a riser."""
    coll = bpy.data.collections.new("Ground")
    bpy.context.scene.collection.children.link(coll)
    box("Floor", (-4.0, 4.0), (-3.0, 20.0), (-0.2, 0.0), coll)
    box("Platform", (-4.0, 4.0), (5.0, 9.0), (0.0, 0.3), coll)
    curve = bezier_line("Path", [(0.0, 0.0, 0.5), (0.3, 6.0, 0.5), (0.0, 13.0, 0.5)])
    assert bpy.ops.footprint.generate_along_curve(curve=curve.name, character="dog", quadruped_gait="trot",
                                                  speed=2.5, terrain_collection=coll.name) == {"FINISHED"}
    dog = modules("solver.character").preset("dog")
    objs = footprint_objects()
    ys, zs = np.array([o.location.y for o in objs]), np.array([o.location.z for o in objs])
    on = (ys > 5.0) & (ys < 9.0)
    assert on.sum() >= 4 and np.allclose(zs[on], 0.3, atol=MM) and np.allclose(zs[~on], 0.0, atol=MM)
    for riser in (5.0, 9.0):
        assert np.abs(ys - riser).min() >= dog.foot_length / 2 + 0.02 - 0.011  # (the scan: within 1 cm)
        takeoff = max(o.footprint.liftoff for o, y in zip(objs, ys) if y < riser)
        landing = min(o.footprint.contact for o, y in zip(objs, ys) if y > riser)
        assert landing > takeoff + 0.1


def test_a_rising_speed_walks_trots_and_gallops_in_one_track(modules, clean):
    """Change Speed from 1 to 6 m/s with Gait Auto along a long curve: one track whose touchdowns come in the
    walk's lateral sequence first, the trot's diagonal pairs in the middle, the rotary gallop's order at the
    end (a dog's gallop), each foot's stance shorter as the speed rises; by default it starts standing on all
    four feet (one touchdown of all four at the start) and stops so (all four lifting together at the end), the
    gait's footfalls between."""
    gaits = modules("solver.quadruped.gaits").GAITS
    curve = bezier_line("Long", [(0.0, 0.0, 0.0), (3.0, 12.0, 0.0), (0.0, 24.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=curve.name, character="dog", quadruped_gait="auto",
                                                  speed=1.0, change_speed=True, end_speed=6.0) == {"FINISHED"}
    tracks = [c for c in bpy.data.collections if c.footprint_track.is_track]
    assert len(tracks) == 1
    objs = footprint_objects()
    touchdowns = [feet for _t, feet in groups(objs)]
    assert touchdowns[0] == {"LH", "RH", "LF", "RF"} and min(o.footprint.contact for o in objs) == 0.0
    last = max(o.footprint.liftoff for o in objs)
    assert sorted(o.footprint.foot for o in objs if o.footprint.liftoff == last) == sorted(["LH", "RH", "LF", "RF"])
    assert follows(gaits["walk"].phases, touchdowns[1:9])
    assert follows(gaits["rotary_gallop"].phases, touchdowns[-8:])
    pairs = [{"LH", "RF"}, {"RH", "LF"}]
    runs = [k for k in range(len(touchdowns) - 6) if all(touchdowns[k + j] in pairs for j in range(6))]
    assert runs and runs[0] > 8
    objs = sorted(objs, key=lambda o: o.footprint.contact)
    stance = [o.footprint.liftoff - o.footprint.contact for o in objs]
    assert stance[-5] < 0.5 * stance[4]  # the gait's, the standing footprints left out


def test_bad_input_is_refused_naming_it_and_changes_nothing(modules, clean):
    """A gap no trot at 2 m/s can fly (3 m) names it and where along the curve; a mesh given as the curve; a
    biped's option (RUNNER Run) with a dog; a hairpin tighter than half a hip height: each refused, the scene
    as it was, no track made. A transverse gallop at 6 m/s flies the 3 m gap, and undo takes it back."""
    coll = ground(gap=(4.0, 7.0), obstacle=None)
    curve = bezier_line("Path", [(0.0, 0.0, 0.5), (0.0, 7.0, 0.5), (0.0, 14.0, 0.5)])
    hairpin = bezier_line("Hairpin", [(0.0, 0.0, 0.0), (0.0, 3.0, 0.0), (0.3, 3.0, 0.0), (0.3, 0.0, 0.0)])
    before = snapshot()
    cases = [
        (dict(curve=curve.name, quadruped_gait="trot", speed=2.0, terrain_collection=coll.name),
         r"Curve 'Path': gap 1 \(gap (3.99|4) to 7(.01)? m along the path\) is longer than a trot at 2 m/s can fly"),
        (dict(curve="Slab A", quadruped_gait="trot", speed=2.0), "Slab A is not a curve object"),
        (dict(curve=curve.name, runner=True), "RUNNER Run: for bipeds; 'dog' is a quadruped"),
        (dict(curve=hairpin.name, quadruped_gait="trot", speed=2.0),
         r"Curve 'Hairpin': the path turns tighter than 0.36 m \(0.5 hip heights\)"),
    ]
    for kwargs, message in cases:
        with pytest.raises(RuntimeError, match=message):
            bpy.ops.footprint.generate_along_curve(character="dog", **kwargs)
        assert snapshot() == before, kwargs
    assert not [c for c in bpy.data.collections if c.footprint_track.is_track]
    # Undoable: what a good call made lives in data undo restores (the test pushes the steps the UI would).
    bpy.ops.ed.undo_push(message="before")
    assert bpy.ops.footprint.generate_along_curve(curve=curve.name, character="dog", quadruped_gait="gallop",
                                                  speed=6.0, terrain_collection=coll.name) == {"FINISHED"}
    after = snapshot()
    assert after != before
    bpy.ops.ed.undo_push(message="generate")
    bpy.ops.ed.undo()
    assert snapshot() == before
    bpy.ops.ed.redo()
    assert snapshot() == after


def test_the_redo_panel_shows_a_quadrupeds_options_or_a_bipeds(addon, clean):
    """draw(): a quadruped's gait, speed (and end speed when it changes), distance without Fill Curve and
    jumps; a biped's step length, width, start foot and gait (or RUNNER's); a biped option set on a
    quadruped is shown, marked, so it can be turned off."""
    operator = bpy.types.FOOTPRINT_OT_generate_along_curve

    class Layout:
        def __init__(self):
            self.shown, self.alert = [], False

        def prop(self, _data, name, **_kwargs):
            self.shown.append(name + ("!" if self.alert else ""))

        def prop_search(self, _data, name, *_args, **_kwargs):
            self.shown.append(name)

        def row(self):
            return self

    def shown(**values):
        properties = bpy.ops.footprint.generate_along_curve.get_rna_type().properties
        defaults = {name: prop.default for name, prop in properties.items()
                    if hasattr(prop, "default") and not getattr(prop, "is_array", False)}
        fake = SimpleNamespace(layout=Layout(), **{**defaults, **values})
        operator.draw(fake, bpy.context)
        return fake.layout.shown

    dog = shown(character="dog")
    assert {"quadruped_gait", "speed", "change_speed", "fill", "stand_start", "stand_stop", "jump"} <= set(dog)
    assert not {"step_length", "step_width", "start_foot", "gait", "runner", "end_speed", "distance"} & set(dog)
    assert {"end_speed", "distance"} <= set(shown(character="dog", change_speed=True, fill=False))
    assert "runner!" in shown(character="dog", runner=True)
    human = shown(character="human")
    assert {"step_length", "step_width", "start_foot", "gait", "runner"} <= set(human)
    assert not {"quadruped_gait", "speed", "end_speed", "jump", "distance", "stand_start", "stand_stop"} & set(human)
