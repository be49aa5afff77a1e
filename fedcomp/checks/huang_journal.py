"""Claims of huang_journal, each declared with its check (see :mod:`fedcomp.checks`)."""
from __future__ import annotations

CLAIMS: list = []
