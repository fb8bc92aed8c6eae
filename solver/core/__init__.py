"""The COM optimisation (vdP97 §2.3-2.4, Torkos §4): the contact schedule, the Hermite spline, the problem's
terms (physics, comfort, smoothness), the body orientation the hips are placed by, and the optimisers."""
