"""Checks of a solver Problem shared by the biped's and the quadruped's tests: its analytic derivatives
against finite differences, its normal equations against the dense Jacobian's. Generic in the trajectory's
dimension D (a biped's COM: 3; a quadruped's COM and spine vector: 6)."""

import numpy as np

from footprint_locomotion.solver.core import optimize


def assert_derivatives_match(problem, iterations=4):
    """At the solution after a few iterations, d r / d p and d r / d a of every sample match central
    differences; kinks (a leg leaving the barrier, a face change) can sit between the two probes: a few may
    differ."""
    free = optimize.levenberg_marquardt(problem, max_iterations=iterations).free
    p, a = problem.sample_states(free)
    _r, jp, ja = problem.residuals(p, a, jacobian=True)
    step = 1e-6
    for k in range(problem.dim):
        e = np.zeros(problem.dim)
        e[k] = step
        fd_p = (problem.residuals(p + e, a) - problem.residuals(p - e, a)) / (2 * step)
        fd_a = (problem.residuals(p, a + e) - problem.residuals(p, a - e)) / (2 * step)
        assert np.mean(np.abs(fd_p - jp[..., k]) < 1e-5 * (1 + np.abs(fd_p))) > 0.995, k
        assert np.mean(np.abs(fd_a - ja[..., k]) < 1e-5 * (1 + np.abs(fd_a))) > 0.995, k


def dense_normal_equations(problem, free):
    """J^T J, J^T r and r^T r of the whole problem, built naively from each sample's dense Jacobian."""
    dim = problem.dim
    basis, offset, pair = problem.sample_basis()
    y = np.einsum("sij,sj->si", basis, free[pair].reshape(len(pair), 4 * dim)) + offset
    r, dp, da = problem.residuals(y[:, :dim], y[:, dim:], jacobian=True)
    local = np.concatenate([dp, da], axis=2) @ basis  # (S, R, 4D)
    jac = np.zeros(r.shape + (problem.n_free, 2 * dim))
    rows = np.arange(len(r))
    jac[rows, :, pair[:, 0]] += local[:, :, :2 * dim]
    jac[rows, :, pair[:, 1]] += local[:, :, 2 * dim:]
    jac = np.vstack([jac.reshape(r.size, -1), problem.end_jacobian()])
    r = np.concatenate([r.ravel(), problem.end_residuals(free).ravel()])
    return jac.T @ jac, jac.T @ r, float(r @ r)
