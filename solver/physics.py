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
coefficients are all >= 0; of those faces the one that leaves the least of F is the answer. Every face
is tried at once: per sample and face, the inverse Gram matrix of the face's K_i gives the coefficients.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from .spline import GRAVITY_VECTOR

_RIDGE = 1e-12  # keeps the Gram matrix of two nearly parallel legs invertible


@dataclass(frozen=True)
class _Faces:
    """The faces of an L-legged cone, the empty one first, as index arrays for vectorised filling."""

    member: np.ndarray  # (C, L) bool: the legs of each face
    legs_of: np.ndarray  # (L, C) float: 1 where the leg is in the face (counts a face's idle legs by matmul)
    single: tuple  # (faces, legs) of the one-legged faces
    pair: tuple  # (faces, first legs, second legs) of the two-legged faces
    triple: list  # (face, legs (3,)) of each three-legged face (quadrupeds)


@lru_cache(maxsize=None)
def _faces(legs: int) -> _Faces:
    faces = [()] + [c for k in range(1, min(legs, 3) + 1) for c in combinations(range(legs), k)]
    member = np.zeros((len(faces), legs), dtype=bool)
    for index, face in enumerate(faces):
        member[index, list(face)] = True

    def columns(size):
        rows = [(c,) + f for c, f in enumerate(faces) if len(f) == size]
        return tuple(np.array(rows, dtype=int).reshape(-1, size + 1).T)

    triples = [(c, np.array(f)) for c, f in enumerate(faces) if len(f) == 3]
    return _Faces(member, member.T.astype(float), columns(1), columns(2), triples)


def _inverse_grams(directions):
    """(S, C, L, L): per face, the inverse of its legs' Gram matrix, zero outside the face's legs."""
    n, legs = directions.shape[:2]
    faces = _faces(legs)
    inverse = np.zeros((n,) + faces.member.shape + (legs,))
    c, i = faces.single
    inverse[:, c, i, i] = 1.0  # unit K_i
    c, i, j = faces.pair
    if len(c):
        cos = np.einsum("spd,spd->sp", directions[:, i], directions[:, j])
        det = np.maximum(1.0 - cos * cos, _RIDGE)
        inverse[:, c, i, i] = inverse[:, c, j, j] = 1.0 / det
        inverse[:, c, i, j] = inverse[:, c, j, i] = -cos / det
    for c, idx in faces.triple:  # three-legged faces: quadrupeds only, a handful
        k = directions[:, idx]
        sub = k @ np.swapaxes(k, 1, 2) + _RIDGE * np.eye(3)
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
    along = np.einsum("sld,sd->sl", directions, required)  # F . K_i
    inverse = _inverse_grams(directions)
    lam_all = np.einsum("sclm,sm->scl", inverse, along)
    # A face is usable where all its legs stand (none of them idle) and push (no coefficient below 0).
    usable = ((~active).astype(float) @ _faces(legs).legs_of == 0.0) & (lam_all.min(axis=2) >= 0.0)
    # Of those, the one leaving the least of F. Measured on the residuals themselves: for a face whose
    # legs are (nearly) coplanar the ridge-regularised coefficients make F.P F unreliable.
    residuals = required[:, None, :] - lam_all @ directions
    left = np.where(usable, np.einsum("scd,scd->sc", residuals, residuals), np.inf)
    choice = np.argmin(left, axis=1)  # the first of equals: the empty face before any leg
    rows = np.arange(n)
    lam = lam_all[rows, choice]
    residual = residuals[rows, choice]
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
