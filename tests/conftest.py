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


@pytest.fixture
def without_oracle(tmp_path, monkeypatch):
    """``without_oracle(cls, name)``: a subclass of problem class `cls` whose kernel module
    lacks the optional oracle `name` (every other name re-exported from cls.kernels), so that the
    engine pastes its default (fedcomp.engine.defaults) in place of the problem's own."""
    import importlib

    def make(cls, name):
        kern = importlib.import_module(cls.kernels)
        mod = f"{cls.kernels.rsplit('.', 1)[-1]}_without_{name}"
        names = [n for n in dir(kern) if not n.startswith("__") and n != name]
        (tmp_path / f"{mod}.py").write_text(
            f"from {cls.kernels} import {', '.join(names)}  # noqa: F401\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        return type(f"{cls.__name__}Without{name}", (cls,), {"kernels": mod})
    return make


@pytest.fixture(scope="session")
def measure_quick(tmp_path_factory):
    """Each check's quick-profile measurement, measured once for the whole test session (claims
    sharing a measure function share it): ``measure_quick(claim_or_id) -> Measurement``."""
    from fedcomp import checks
    out = tmp_path_factory.mktemp("quick-measurements")
    cache = {}

    def get(claim):
        if isinstance(claim, str):
            claim = checks.get(claim)
        if claim.check.measure not in cache:
            cache[claim.check.measure] = claim.check.measure("quick", out)
        return cache[claim.check.measure]
    return get
