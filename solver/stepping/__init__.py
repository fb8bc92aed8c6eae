"""Stepping (Wu, Medina and Zordan): one step to a target, steps to a stance, push recovery, clip transitions."""
