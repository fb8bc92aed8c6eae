"""Reconstruction of the body on top of the COM motion: walking attributes (arms, trunk, head, feet)."""
