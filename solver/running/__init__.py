"""Running (Bruderlin & Calvert 1996, RUNNER): the running parameters and the footprint tracks they lay, the
nineteen style attributes, the pelvis's state constraints for a step, and the sampled running cycle."""
