"""Stepping (Wu, Medina and Zordan): one step to a target, steps to a stance, push recovery, clip transitions.

A stepping motion is an ordinary biped track marked "motion": "stepping" whose feet step one at a time from
standing to standing (steps.py); solver.biped.solve hands such a track to solve_steps."""

from .one_step import one_step
from .plan import step_to_stance
from .push import recover_from_push
from .solve import solve_steps
from .stance import Stance

__all__ = ["Stance", "one_step", "solve_steps", "step_to_stance", "recover_from_push"]
