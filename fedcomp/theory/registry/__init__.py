"""Claim declarations, one module per paper (see :mod:`fedcomp.theory.claims`)."""
