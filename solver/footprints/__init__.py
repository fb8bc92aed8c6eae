"""Making footprints: along a path (vdP97 §2.1), one more at the end of a track, automatic timing from the
steps' distances (vdP97 §4.1), edits (retime, mirror, delete), and the papers' example tracks."""
