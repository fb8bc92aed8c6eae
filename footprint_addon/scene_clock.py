"""Scene frames and track seconds: a track's time 0 is the scene's start frame, at the scene's frame rate
(fps / fps_base). Placing, baking, previewing, the overlay and scrubbing all count time this way."""


def fps(scene):
    return scene.render.fps / scene.render.fps_base


def clock(scene):
    """Everything that turns track seconds into the scene's frames: what a preview's keys depend on."""
    return scene.render.fps, scene.render.fps_base, scene.frame_start


def seconds(scene, frame=None):
    """Track seconds at a frame (the current one by default)."""
    frame = scene.frame_current if frame is None else frame
    return (frame - scene.frame_start) / fps(scene)


def frame(scene, seconds_):
    """The nearest whole frame to a time in track seconds."""
    return int(round(scene.frame_start + seconds_ * fps(scene)))
