"""Footprints that plan themselves: stepping stones and allowed ground, obstacles, wandering and following,
footprints from existing animation, timing optimisation (issue 20; vdP97 §4, Torkos §3.5)."""
