"""The physics term: the non-physical force needed to produce the COM acceleration (vdP97 §2.4.1).

With unit mass the legs must supply F = a - g (vdP97: e = ||F + mg - ma||). A stance leg can only push,
along the line from its point of support to the COM, so the feasible leg forces form the convex cone
spanned by the unit vectors K_i from each support point to the COM:
- flight: the cone is {0}, all of F is non-physical;
- single stance: the ray lambda K, lambda >= 0 (vdP97 Fig. 7, F' = max(0, F . K));
- double stance: the wedge between K_1 and K_2 in their plane (vdP97 Fig. 8, Torkos eq. 3: the
  out-of-plane part and the in-plane part outside the wedge are non-physical);
- three or four legs (quadrupeds): the polyhedral cone.
The non-physical force is F minus its projection onto that cone. The projection is the orthogonal
projection onto the span of one face of the cone (the empty face, one leg, two or three legs) whose
coefficients are all >= 0; of those faces the one that keeps most of F, F.P F, is the answer. Every face
is tried at once: per sample and face, the inverse Gram matrix of the face's K_i gives the coefficients.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from .spline import GRAVITY_VECTOR

_RIDGE = 1e-12  # keeps the Gram matrix of two nearly parallel legs invertible


@lru_cache(maxsize=None)
def _faces(legs: int):
    """Faces of the cone, the empty one first: (candidate, leg) membership (C, L) as a bool array."""
    faces = [()] + [c for k in range(1, min(legs, 3) + 1) for c in combinations(range(legs), k)]
    member = np.zeros((len(faces), legs), dtype=bool)
    for index, face in enumerate(faces):
        member[index, list(face)] = True
    return tuple(faces), member


def _inverse_grams(directions):
    """(S, C, L, L): per face, the inverse of its legs' Gram matrix, zero outside the face's legs."""
    n, legs = directions.shape[:2]
    faces, _member = _faces(legs)
    gram = directions @ np.swapaxes(directions, 1, 2)
    inverse = np.zeros((n, len(faces), legs, legs))
    singles = [(c, f[0]) for c, f in enumerate(faces) if len(f) == 1]
    pairs = [(c,) + f for c, f in enumerate(faces) if len(f) == 2]
    if singles:
        c, i = np.array(singles).T
        inverse[:, c, i, i] = 1.0  # unit K_i
    if pairs:
        c, i, j = np.array(pairs).T
        cos = gram[:, i, j]
        det = np.maximum(1.0 - cos * cos, _RIDGE)
        inverse[:, c, i, i] = inverse[:, c, j, j] = 1.0 / det
        inverse[:, c, i, j] = inverse[:, c, j, i] = -cos / det
    for c, face in enumerate(faces):  # three-legged faces: quadrupeds only, a handful
        if len(face) == 3:
            idx = np.array(face)
            sub = gram[:, idx[:, None], idx[None, :]] + _RIDGE * np.eye(3)
            inverse[:, c, idx[:, None], idx[None, :]] = np.linalg.inv(sub)
    return inverse


def project(required, directions, active, jacobian=False):
    """Residual vectors (S, 3) of required forces (S, 3) against the cones of unit directions (S, L, 3)
    of the active (S, L) legs.

    With jacobian also returns, for the face chosen, the coefficients lam (S, L) (F's projection is
    sum lam_l K_l), b (S, L, 3) = K (K^T K)^-1 per leg, and the complement projector M (S, 3, 3) = I - P:
    then d r / d F = M and, for a leg direction D_l = |D_l| K_l before normalising,
    d r / d D_l = -(lam_l M + b_l r^T) / |D_l| (the derivative of an orthogonal projector).
    """
    required = np.asarray(required, dtype=float)
    n, legs = directions.shape[:2]
    _faces_, member = _faces(legs)
    along = np.einsum("sld,sd->sl", directions, required)  # F . K_i
    inverse = _inverse_grams(directions)
    lam_all = np.einsum("sclm,sm->scl", inverse, along)
    usable = ~(member[None] & ~active[:, None, :]).any(axis=2) & (lam_all >= 0.0).all(axis=2)
    kept = np.where(usable, np.einsum("scl,sl->sc", lam_all, along), -1.0)  # F.P F >= 0 where usable
    choice = np.argmax(kept, axis=1)  # the first of equals: the empty face before any leg
    rows = np.arange(n)
    lam = lam_all[rows, choice]
    residual = required - np.einsum("sl,sld->sd", lam, directions)
    if not jacobian:
        return residual
    b = inverse[rows, choice] @ directions
    complement = np.eye(3) - np.swapaxes(b, 1, 2) @ directions
    return residual, lam, b, complement


def nonphysical_force(required, directions, active):
    """Residual vectors (S, 3): required (S, 3) force, directions (S, L, 3) unit K_i, active (S, L) bool."""
    return project(required, directions, active)


def required_force(acceleration):
    """The net leg force per unit mass that the acceleration needs: F = a - g."""
    return np.asarray(acceleration, dtype=float) - GRAVITY_VECTOR
