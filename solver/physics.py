"""The physics term: the non-physical force needed to produce the COM acceleration (vdP97 §2.4.1).

With unit mass the legs must supply F = a - g (vdP97: e = ||F + mg - ma||). A stance leg can only push,
along the line from its point of support to the COM, so the feasible leg forces form the convex cone
spanned by the unit vectors K_i from each support point to the COM:
- flight: the cone is {0}, all of F is non-physical;
- single stance: the ray lambda K, lambda >= 0 (vdP97 Fig. 7, F' = max(0, F . K));
- double stance: the wedge between K_1 and K_2 in their plane (vdP97 Fig. 8, Torkos eq. 3: the
  out-of-plane part and the in-plane part outside the wedge are non-physical);
- three or four legs (quadrupeds): the polyhedral cone.
The non-physical force is F minus its projection onto that cone, found exactly by trying every face of
the cone (the projection lies in the relative interior of one face); vectorised over samples.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .spline import GRAVITY_VECTOR

_RIDGE = 1e-12


def _faces(legs: int):
    return [c for k in range(1, min(legs, 3) + 1) for c in combinations(range(legs), k)]


def _cross(u, v):
    """u x v over the last axis (np.cross is several times slower on small arrays)."""
    u0, u1, u2 = u[..., 0], u[..., 1], u[..., 2]
    v0, v1, v2 = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0], axis=-1)


def nonphysical_force(required, directions, active, jacobian=False):
    """Residual vectors (S, 3): required (S, 3) force, directions (S, L, 3) unit K_i, active (S, L) bool.

    jacobian=True also returns d residual / d required (S, 3, 3) and d residual / d K_i (S, L, 3, 3),
    exact for the face of the cone the projection lands on.
    """
    required = np.asarray(required, dtype=float)
    n, legs = directions.shape[:2]
    best = required.copy()  # the zero force is always feasible
    best_norm = np.einsum("sd,sd->s", best, best)
    choice = np.full(n, -1)
    along = np.einsum("sld,sd->sl", directions, required)  # F . K_i, shared by the faces below
    faces = _faces(legs)
    for index, face in enumerate(faces):
        ok = active[:, face].all(axis=1)
        if len(face) == 1:
            (i,) = face
            lam = along[:, i]
            ok &= lam >= 0.0
            resid = required - lam[:, None] * directions[:, i]
        elif len(face) == 2:  # the wedge: 2 x 2 normal equations in closed form (unit K_i)
            i, j = face
            c = np.einsum("sd,sd->s", directions[:, i], directions[:, j])
            det = np.maximum(1.0 - c * c, _RIDGE)
            lam_i = (along[:, i] - c * along[:, j]) / det
            lam_j = (along[:, j] - c * along[:, i]) / det
            ok &= (lam_i >= 0.0) & (lam_j >= 0.0)
            resid = required - lam_i[:, None] * directions[:, i] - lam_j[:, None] * directions[:, j]
        else:
            k = directions[:, face, :]  # (S, 3, 3)
            gram = np.einsum("sid,sjd->sij", k, k) + _RIDGE * np.eye(len(face))
            lam = np.linalg.solve(gram, along[:, face, None])[..., 0]
            ok &= (lam >= 0.0).all(axis=1)
            resid = required - np.einsum("si,sid->sd", lam, k)
        norm = np.einsum("sd,sd->s", resid, resid)
        better = ok & (norm < best_norm)
        best = np.where(better[:, None], resid, best)
        best_norm = np.where(better, norm, best_norm)
        choice = np.where(better, index, choice)
    if not jacobian:
        return best
    eye = np.eye(3)
    d_required = np.broadcast_to(eye, (n, 3, 3)).copy()
    d_directions = np.zeros((n, legs, 3, 3))
    for index, face in enumerate(faces):
        chosen = choice == index
        if not chosen.any():
            continue
        if len(face) == 1:  # r = F - (F.K) K
            (i,) = face
            k = directions[chosen, i]
            f = required[chosen]
            outer_kk = k[:, :, None] * k[:, None, :]
            outer_kf = k[:, :, None] * f[:, None, :]
            outer_kk *= -1.0
            outer_kk += eye
            outer_kf += along[chosen, i][:, None, None] * eye
            d_required[chosen] = outer_kk
            d_directions[chosen, i] = -outer_kf
        elif len(face) == 2:  # r = n (n . F), n the unit normal of the plane of K_i, K_j
            i, j = face
            ki, kj, f = directions[chosen, i], directions[chosen, j], required[chosen]
            cross = _cross(ki, kj)
            size = np.maximum(np.sqrt(np.einsum("sd,sd->s", cross, cross)), 1e-12)
            nrm = cross / size[:, None]
            nf = np.einsum("sd,sd->s", nrm, f)
            d_required[chosen] = nrm[:, :, None] * nrm[:, None, :]
            dr_dn = nf[:, None, None] * eye + nrm[:, :, None] * f[:, None, :]
            dn_dc = (eye - nrm[:, :, None] * nrm[:, None, :]) / size[:, None, None]
            dr_dc = dr_dn @ dn_dc
            # d c / d K_i = -[K_j]x and d c / d K_j = [K_i]x; a row m times [k]x is m x k.
            d_directions[chosen, i] = -_cross(dr_dc, kj[:, None, :])
            d_directions[chosen, j] = _cross(dr_dc, ki[:, None, :])
        else:  # inside a three-legged cone: every force is feasible, the residual is zero
            d_required[chosen] = 0.0
    return best, d_required, d_directions


def required_force(acceleration):
    """The net leg force per unit mass that the acceleration needs: F = a - g."""
    return np.asarray(acceleration, dtype=float) - GRAVITY_VECTOR
