import os

import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def small_lq():
    import fedcomp
    return fedcomp.problems.LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1)


@pytest.fixture
def extra_claims(monkeypatch):
    """Add claims to the registry for one test: ``extra_claims(c1, c2, ...)``."""
    from fedcomp import checks

    def add(*claims):
        reg = dict(checks._registry())
        for c in claims:
            reg[c.id] = c
        monkeypatch.setattr(checks, "_CACHE", checks._validate(list(reg.values())))
    return add
