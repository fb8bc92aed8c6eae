"""Quadrupeds in the planners (issue 20: "works for bipeds and, once they exist, quadrupeds"; Torkos §3.4-3.5):
a dog across random stone fields (every footprint's support point on a stone's usable face, a flight over each
gap, the goal reached, solved), a field with no crossing named; a path bent round obstacles (no sole on one, the
solved hind and fore masses a body radius clear); a minute of wandering in a walled room with obstacles and a
follower within 2 m of a target at walking pace; and Blender's Footprints Along Curve round obstacles with a dog."""

import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def box(x, y, width, depth):
    return np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, depth / 2] + [x, y]


def river(footholds, seed, gap_at=None):
    """A river for a dog: a bank (radius 2.5 m) at each end, a chain of 4-6 stones (radius 0.45-0.7 m: room for
    a trot's diagonal pair, 0.66 m hip to hip, to land and take off) whose gaps edge to edge are 0.15-1.0 m, a
    little higher or lower, and distractors off to the sides. gap_at: the chain's stone after which the next is
    3.5 m on (no crossing)."""
    rng = np.random.default_rng(seed)
    positions, radii = [[0.0, 0.0, 0.0]], [2.5]
    y = 2.5
    for k in range(rng.integers(4, 7)):
        radius = rng.uniform(0.45, 0.7)
        y += rng.uniform(0.15, 1.0) + radius + (3.5 if k == gap_at else 0.0)
        positions.append([rng.uniform(-0.4, 0.4), y, rng.uniform(-0.05, 0.05)])
        radii.append(radius)
        y += radius
    y += rng.uniform(0.2, 0.8) + 2.5
    positions.append([0.0, y, 0.0])
    radii.append(2.5)
    for _ in range(6):
        positions.append([rng.choice([-1, 1]) * rng.uniform(3.5, 5.0), rng.uniform(0.0, y), 0.0])
        radii.append(rng.uniform(0.2, 0.5))
    return footholds.Stones(np.array(positions), np.array(radii)), (0.0, 0.0), (0.0, y)


@pytest.mark.parametrize("seed", range(4))
def test_a_dog_crosses_a_river_on_the_stones(solver, seed):
    stones, plans = solver("planning.stones"), solver("planning.four_legs.crossing")
    dog = solver("character").preset("dog")
    field, start, goal = river(solver("planning.footholds"), seed)
    plan = plans.crossing_plan(field, start, goal, dog)
    assert stones.plan_crossing(field, start, goal, dog).feet.tolist() == plan.track.feet.tolist()  # the hook
    track = plan.track
    # Every support point (a paw's: the footprint's point) on a stone's usable face, at that stone's height.
    offset = np.linalg.norm(track.positions[:, None, :2] - field.positions[None, :, :2], axis=2)
    on = offset <= field.radii[None] - solver("planning.footholds").MARGIN + 1e-9
    assert on.any(axis=1).all()
    stone = np.argmax(np.where(on, field.positions[None, :, 2], -np.inf), axis=1)
    assert np.allclose(track.positions[:, 2], field.positions[stone, 2])
    # A flight over each gap: every gap on the path was a jump, each flown with all four feet up.
    assert len(plan.jumps) >= len(field) - 8 - 1 and len(plan.flights) == len(plan.jumps)
    assert stones.leaps(track) >= len(plan.jumps)
    for flight in plan.flights:
        down = (track.contact < flight.landing - 1e-9) & (track.liftoff > flight.takeoff + 1e-9)
        assert not down.any()
    # The body comes to rest at the goal (within half a stride: strides are whole) on the goal's bank, the
    # first four footprints stand on the start's bank.
    gaits = solver("quadruped.gaits")
    stride = gaits.stride_of(gaits.GAITS[plan.gait], plan.speed, dog)
    assert abs(plan.rest_error) <= 0.5 * stride
    assert (stone[-4:] == len(field) - 7).all() and (stone[:4] == 0).all()
    # No foot steps beyond its reach: what a foot's step over the longest gap the gait flies measures, and a
    # margin (four_legs.crossing.REACH_MARGIN); under 2 of the dog's strides at its size and 3 body lengths
    # (a route trotted 10 % faster than planned, SPEED_STEPS, reaches 4.8 m).
    assert plan.reach < 2.0 * gaits.stride_length(plan.speed, dog.leg_length_nominal) + 3.0 * 0.66  # (Alexander's)
    for foot in dog.feet:
        mine = np.flatnonzero(track.feet == foot)
        assert np.linalg.norm(np.diff(track.positions[mine, :2], axis=0), axis=1).max() <= plan.reach
    motion = solver("biped").solve(track, dog)
    assert np.isfinite(motion.com).all()
    assert motion.report["non_physical_force"]["mean"] < 0.05
    assert np.linalg.norm(motion.com[-1, :2] - goal) < 0.9


def test_a_river_with_no_crossing_names_the_gap(solver):
    stones = solver("planning.stones")
    dog = solver("character").preset("dog")
    field, start, goal = river(solver("planning.footholds"), 1, gap_at=1)
    with pytest.raises(solver("errors").PlanningError,
                       match=r"the stones reachable end at stone 1 .* stone 2 .* is 4\.\d\d m away, farther than the "
                             r"\d\.\d\d m a dog leaps"):
        stones.plan_crossing(field, start, goal, dog)
    with pytest.raises(solver("errors").PlanningError, match=r"the goal \(9\.00, 0\.00\) is on no stone"):
        stones.plan_crossing(field, start, (9.0, 0.0), dog)


def test_a_dog_goes_round_the_obstacles(solver):
    obstacles, body = solver("planning.obstacles"), solver("planning.four_legs.body")
    around_module, crossing = solver("planning.four_legs.around"), solver("planning.four_legs.crossing")
    dog = solver("character").preset("dog")
    radius = body.body_radius(dog)
    assert radius == pytest.approx(0.5 * (0.263 + 0.395) + 0.125)  # half hind-to-fore hips, the hips' half-width
    around = obstacles.Obstacles((box(0.0, 3.0, 1.0, 0.3), box(0.3, 6.0, 0.2, 0.2), box(-0.8, 8.5, 2.0, 0.2)),
                                 ("wall", "post", "bench"))
    track = around_module.footprints_around(np.array([[0.0, 0.0, 0.0], [0.0, 11.0, 0.0]]), around, dog)
    soles = obstacles.foot_outline(track.positions, track.headings, dog).reshape(-1, 2)
    assert around.distance(soles)[0].min() > 0.0
    assert track.positions[:, 1].max() > 9.5  # it got past them all
    motion = solver("biped").solve(track, dog)
    masses = motion.body_points[:, :, :2].reshape(-1, 2)
    assert around.distance(masses)[0].min() >= radius
    assert motion.report["non_physical_force"]["mean"] < 0.05
    # With stones: a post on the far bank between the landing and the goal is gone round.
    stones = solver("planning.stones")
    field = solver("planning.footholds").Stones(np.array([[0.0, 0.0, 0.0], [0.0, 3.6, 0.0], [0.0, 8.5, 0.0]]), np.array([2.5, 0.6, 3.0]))
    post = obstacles.Obstacles((box(0.0, 8.0, 0.2, 0.2),), ("post",))
    plan = crossing.crossing_plan(field, (0.0, 0.0), (0.0, 10.0), dog, obstacles=post)
    motion = solver("biped").solve(plan.track, dog)
    assert post.distance(motion.body_points[:, :, :2].reshape(-1, 2))[0].min() >= radius
    assert post.distance(obstacles.foot_outline(plan.track.positions, plan.track.headings, dog).reshape(-1, 2))[
        0].min() > 0.0
    wall = obstacles.Obstacles((box(0.0, 6.5, 7.0, 0.2),), ("wall",))  # across the far bank: no way round
    with pytest.raises(solver("errors").PlanningError, match="keeps a dog's body clear of the obstacles: wall stands"):
        crossing.plan_crossing(field, (0.0, 0.0), (0.0, 10.0), dog, obstacles=wall)


@pytest.mark.parametrize("seed", range(2))
def test_a_minute_of_a_dog_wandering_stays_in_the_room(solver, seed):
    wander, obstacles = solver("planning.wander"), solver("planning.obstacles")
    body = solver("planning.four_legs.body")
    dog = solver("character").preset("dog")
    area = wander.Area(box(0.0, 0.0, 9.0, 7.0), obstacles.Obstacles(
        (box(1.5, 1.0, 1.0, 1.0), box(-2.0, -1.0, 0.4, 2.0), box(-0.5, 2.0, 0.4, 0.4)), ("table", "screen", "post")))
    track = wander.wander(dog, area, (0.0, -2.3), 0.0, 60.0, seed=seed)
    assert track.contact.max() >= 60.0
    soles = obstacles.foot_outline(track.positions, track.headings, dog).reshape(-1, 2)
    assert area.clearance(soles).min() > 0.0  # every paw inside the walls, off every obstacle
    motion = solver("biped").solve(track, dog)
    masses = motion.body_points[:, :, :2].reshape(-1, 2)
    assert area.clearance(masses).min() >= body.body_radius(dog)
    assert motion.report["non_physical_force"]["mean"] < 0.05
    assert np.ptp(track.positions[:, 0]) > 3.0 and np.ptp(track.positions[:, 1]) > 2.0  # it goes about
    other = wander.wander(dog, area, (0.0, -2.3), 0.0, 60.0, seed=seed + 10)
    count = min(len(other), len(track))
    assert not np.allclose(other.positions[:count], track.positions[:count])


@pytest.mark.parametrize("seed", range(2))
def test_a_dog_in_a_room_too_small_for_its_easy_turns_turns_tighter(solver, seed):
    """A 6 x 5 m room with a table and a post leaves no circle of the dog's easiest turn (60 degrees a stride)
    clear anywhere: it turns as tight as its path's corners are rounded instead (it walked 1.9 m out through the
    wall when the clearest stride was taken); a room with no room to turn at all is named."""
    wander, obstacles = solver("planning.wander"), solver("planning.obstacles")
    body, errors = solver("planning.four_legs.body"), solver("errors")
    dog = solver("character").preset("dog")
    furniture = obstacles.Obstacles((box(4.0, 1.4, 0.8, 0.8), box(1.5, 3.5, 0.4, 0.4)), ("table", "post"))
    area = wander.Area(box(3.0, 2.5, 6.0, 5.0), furniture)
    track = wander.wander(dog, area, (3.0, 2.5), 0.0, 30.0, seed=seed)
    soles = obstacles.foot_outline(track.positions, track.headings, dog).reshape(-1, 2)
    assert area.clearance(soles).min() > 0.0
    masses = solver("biped").solve(track, dog).body_points[:, :, :2].reshape(-1, 2)
    assert area.clearance(masses).min() >= body.body_radius(dog)
    with pytest.raises(errors.PlanningError, match="has no room to turn"):
        wander.wander(dog, wander.Area(box(0.0, 0.0, 2.6, 9.0)), (0.0, 0.0), 0.0, 30.0)


def test_a_dog_follows_within_two_metres(solver):
    wander = solver("planning.wander")
    dog = solver("character").preset("dog")
    speed, radius = 1.0, 4.0  # a dog's walking pace round a circle

    def target(times):
        angle = speed * np.asarray(times) / radius
        return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)

    track = wander.follow(dog, target, (radius, -1.0), 0.0, 40.0)
    motion = solver("biped").solve(track, dog)
    during = motion.times <= 40.0
    distance = np.linalg.norm(motion.com[during, :2] - target(motion.times[during]), axis=1)
    assert distance.max() <= 2.0, distance.max()
    assert motion.report["non_physical_force"]["mean"] < 0.05
    travelled = np.linalg.norm(np.diff(motion.com[during, :2], axis=0), axis=1).sum() / np.ptp(motion.times[during])
    assert travelled == pytest.approx(speed, rel=0.15)


def test_footprints_along_a_curve_take_a_dog_round_the_obstacles(addon, clean):
    """Blender's Footprints Along Curve with an obstacles collection and a dog: the curve bent round a wall and a
    post and rounded, no paw on either (Blender's own ray casts), the solved masses a body radius clear."""
    import bpy
    from blender_scenes import poly_line
    from mathutils import Vector

    solver = lambda name: importlib.import_module(f"{addon}.{name}")  # noqa: E731
    dog = solver("solver.character").preset("dog")
    radius = solver("solver.planning.four_legs.body").body_radius(dog)
    obstacles = bpy.data.collections.new("Obstacles")
    bpy.context.scene.collection.children.link(obstacles)
    made = []
    for name, centre, size in (("Wall", (0.3, 3.0, 0.5), (1.0, 0.2, 1.0)), ("Post", (0.0, 7.0, 0.5), (0.2, 0.2, 1.0))):
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=centre)
        obj = bpy.context.active_object
        obj.name, obj.scale = name, size
        for owner in obj.users_collection:
            owner.objects.unlink(obj)
        obstacles.objects.link(obj)
        made.append((obj, np.array(centre[:2]), np.array(size[:2]) / 2))
    poly_line("Path", [(0.0, 0.0, 0.0), (0.0, 11.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve="Path", character="dog", quadruped_gait="walk", speed=1.3,
                                                  obstacles=obstacles.name) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    track = solver("footprint_addon.scene_io").read_track(coll)
    assert len(track) > 20 and track.positions[:, 1].max() > 9.0
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for obj, _centre, _half in made:  # no paw under an obstacle: a ray down from above each one misses it
        inverse = obj.matrix_world.inverted()
        for point in track.positions:
            start = inverse @ Vector((point[0], point[1], 5.0))
            direction = (inverse.to_3x3() @ Vector((0.0, 0.0, -1.0))).normalized()
            hit, *_rest = obj.evaluated_get(depsgraph).ray_cast(start, direction)
            assert not hit, (obj.name, point)
    motion = solver("solver.biped").solve(track, dog)
    masses = motion.body_points[:, :, :2].reshape(-1, 2)
    for _obj, centre, half in made:
        clear = np.linalg.norm(np.maximum(np.abs(masses - centre) - half, 0.0), axis=1)
        assert clear.min() >= radius, clear.min()


def test_a_dog_crosses_between_big_banks_off_their_centres(solver):
    """Banks 20 m across, a metre apart, the start and goal near their edges: the route's nodes reach out to the
    banks' edges (six rings close round the centre left the edges, and the start 8 m out, unreachable)."""
    stones = solver("planning.stones")
    dog = solver("character").preset("dog")
    field = solver("planning.footholds").Stones(np.array([[0.0, 0.0, 0.0], [0.0, 21.0, 0.0]]), np.array([10.0, 10.0]))
    track = stones.plan_crossing(field, (0.0, 8.0), (0.0, 13.0), dog)
    assert track.positions[:4, 1].mean() < 10.0 < 11.0 < track.positions[-4:, 1].mean()
    assert stones.leaps(track) >= 1  # over the metre of water


def test_stones_too_small_to_set_off_from_are_named_not_a_climb(solver):
    """Two stones 1.4 m across, 1.6 m apart: a leap the dog makes, but neither stone gives it the run-up to set
    off or the room to stop; the message says so (it named a climb of 0.00 m)."""
    stones = solver("planning.stones")
    dog = solver("character").preset("dog")
    field = solver("planning.footholds").Stones(np.array([[0.0, 0.0, 0.0], [0.0, 3.0, 0.0]]), np.array([0.7, 0.7]))
    with pytest.raises(solver("errors").PlanningError) as error:
        stones.plan_crossing(field, (0.0, 0.0), (0.0, 3.0), dog)
    message = str(error.value)
    assert "1.62 m away, within a leap, but a dog needs" in message and "climb" not in message, message
