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
    triple_faces: np.ndarray  # (T,) the three-legged faces (quadrupeds)...
    triple_legs: np.ndarray  # (T, 3) ...and their legs


@lru_cache(maxsize=None)
def _faces(legs: int) -> _Faces:
    faces = [()] + [c for k in range(1, min(legs, 3) + 1) for c in combinations(range(legs), k)]
    member = np.zeros((len(faces), legs), dtype=bool)
    for index, face in enumerate(faces):
        member[index, list(face)] = True

    def columns(size):
        rows = [(c,) + f for c, f in enumerate(faces) if len(f) == size]
        return tuple(np.array(rows, dtype=int).reshape(-1, size + 1).T)

    triples = [(c,) + f for c, f in enumerate(faces) if len(f) == 3]
    triple_faces, *triple_legs = np.array(triples, dtype=int).reshape(-1, 4).T
    return _Faces(member, member.T.astype(float), columns(1), columns(2), triple_faces,
                  np.stack(triple_legs, axis=1))


def _inverse_grams(directions, standing, faces):
    """(C', L, L, S): for each of the faces given (indices into _faces' list), the inverse of its legs' Gram
    matrix, zero outside the face's legs; a three-legged face's only at the samples where it stands
    (standing (C', S)), the others never chosen."""
    legs, n = directions.shape[1:]
    every = _faces(legs)
    slot = np.full(len(every.member), -1)
    slot[faces] = np.arange(len(faces))
    inverse = np.zeros((len(faces), legs, legs, n))
    c, i = every.single
    keep = slot[c] >= 0
    inverse[slot[c[keep]], i[keep], i[keep]] = 1.0  # unit K_i
    c, i, j = every.pair
    keep = slot[c] >= 0
    if keep.any():
        c, i, j = slot[c[keep]], i[keep], j[keep]
        cos = np.add.reduce(directions[:, i] * directions[:, j], 0)
        det = np.maximum(1.0 - cos * cos, _RIDGE)
        inverse[c, i, i] = inverse[c, j, j] = 1.0 / det
        inverse[c, i, j] = inverse[c, j, i] = -cos / det
    if len(every.triple_faces):  # three-legged faces (quadrupeds), all in one inversion, where they stand
        kept = slot[every.triple_faces] >= 0
        face, sample = np.nonzero(standing[slot[every.triple_faces[kept]]])
        if len(face):
            legs3 = every.triple_legs[kept][face]  # (N, 3)
            k = np.moveaxis(directions[:, legs3, sample[:, None]], 0, -1)  # (N, 3 legs, 3 components)
            sub = k @ np.swapaxes(k, 1, 2) + _RIDGE * np.eye(3)
            inverse[slot[every.triple_faces[kept]][face][:, None, None], legs3[:, :, None], legs3[:, None, :],
                    sample[:, None, None]] = np.linalg.inv(sub)
    return inverse


def standing_faces(active):
    """(C, S) bool: the faces of each sample's cone whose legs all stand (active (L, S) bool). It depends on
    the contact schedule alone, so a problem computes it once."""
    return _faces(len(active)).legs_of.T @ (~active).astype(float) == 0.0


def project(required, directions, standing, jacobian=False):
    """Residual vectors (3, S) of required forces (3, S) against the cones of unit directions (3, L, S),
    of the faces standing (C, S) (standing_faces of the active legs). Samples come last in every array,
    so each operation runs along them.

    With jacobian also returns, for the face chosen, the coefficients lam (L, S) (F's projection is
    sum lam_l K_l), b (3, L, S) = K (K^T K)^-1 per leg, and the complement projector M (3, 3, S) = I - P:
    then d r / d F = M and, for a leg direction D_l = |D_l| K_l before normalising,
    d r / d D_l = -(lam_l M + b_l r^T) / |D_l| (the derivative of an orthogonal projector).
    """
    along = np.add.reduce(directions * required[:, None], 0)  # (L, S): F . K_i
    # Only the faces some sample stands on (the empty one always): a trot's never stand on three legs.
    faces = np.flatnonzero(np.logical_or.reduce(standing, 1) | (np.arange(len(standing)) == 0))
    standing = standing[faces]
    inverse = _inverse_grams(directions, standing, faces)
    lam_all = np.einsum("clks,ks->cls", inverse, along)  # (C, L, S) (einsum: half a broadcast sum's time)
    # A face is usable where all its legs stand and push (no coefficient below 0).
    usable = standing & np.logical_and.reduce(lam_all >= 0.0, 1)
    # Of those, the one leaving the least of F. Measured on the residuals themselves: for a face whose
    # legs are (nearly) coplanar the ridge-regularised coefficients make F.P F unreliable.
    residuals = required[:, None] - np.einsum("cls,xls->xcs", lam_all, directions)  # (3, C, S)
    left = np.where(usable, np.add.reduce(residuals * residuals, 0), np.inf)
    choice = left.argmin(axis=0)  # the first of equals: the empty face before any leg
    residual = residuals[:, choice, np.arange(len(choice))]
    if not jacobian:
        return residual
    lam, chosen = _of_face(lam_all, choice), _of_face(inverse, choice)  # (L, S), (L, L, S)
    b = np.einsum("lks,xks->xls", chosen, directions)  # (3, L, S)
    complement = np.eye(3)[..., None] - np.einsum("xls,yls->xys", b, directions)
    return residual, lam, b, complement


def _of_face(values, choice):
    """values[choice[s], ..., s] for every sample s: values (C, ..., S) contiguous, choice (S,) -> (..., S),
    gathered by flat index (a fancy index would come out samples first, take_along_axis is slower)."""
    per_face = values[0].size
    return np.take(values, choice * per_face + np.arange(per_face).reshape(values.shape[1:]))


def nonphysical_force(required, directions, active):
    """Residual vectors (S, 3): required (S, 3) force, directions (S, L, 3) unit K_i, active (S, L) bool."""
    standing = standing_faces(np.asarray(active, dtype=bool).T)
    return project(np.asarray(required, dtype=float).T, np.asarray(directions, dtype=float).T, standing).T


def required_force(acceleration):
    """The net leg force per unit mass that the acceleration needs: F = a - g."""
    return np.asarray(acceleration, dtype=float) - GRAVITY_VECTOR
