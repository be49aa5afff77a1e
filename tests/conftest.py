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
