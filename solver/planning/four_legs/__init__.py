"""Quadrupeds in the planners (issue 20: "works for bipeds and, once they exist, quadrupeds"): across stepping
stones, round obstacles, wandering and following, for a character with four legs (LH RH LF RF).

A biped's planners choose footprints one by one; a quadruped's feet follow its body (Torkos §3.4: footprints
along a path), so here the planners choose the BODY's path and lay the gait along it (gait_track, a standing start
and stop), then check what the gait put down.

Modules: body (its disc and rounded paths), reach (what a gait flies), faces (where feet may land), crossing
(stepping stones), around (obstacles), wander (wander and follow)."""
