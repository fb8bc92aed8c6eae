"""Quadrupeds (Torkos and van de Panne 1998): gaits as footfall templates and the tracks they make."""
