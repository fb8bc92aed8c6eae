"""Reconstruction of the body on top of the COM motion: the legs (vdP97 §2.5: stance, swing, heel-off), the
walking attributes (arms, trunk, head, feet), and the rotations they share (transforms)."""
