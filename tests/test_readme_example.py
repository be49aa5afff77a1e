"""The README's "Add an algorithm" example runs as printed: both backends agree, and with no
momentum it is FedAvg Case II bit for bit (a closed-form pin of the new algorithm)."""
import linecache
import re
from pathlib import Path

import numpy as np
import pytest

import fedcomp
from fedcomp.algorithms import base

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def fedavgm():
    text = README.read_text()
    section = text[text.index("## Add an algorithm"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    name = "<README.md: Add an algorithm>"
    # the engine reads each step's source (inspect), so the block is made readable as a file
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    exec(compile(code, name, "exec"), {"__name__": "readme_example"})
    yield fedcomp.algorithms.get("fedavgm")
    base._REGISTRY.pop("fedavgm")


@pytest.mark.parametrize("stochastic", [False, True])
def test_readme_algorithm(fedavgm, stochastic):
    p = fedcomp.problems.LinearQuadratic.random(4, 3, 5, noise=0.3, seed=1)
    kw = dict(iterations=30, eta=0.1, local_steps=3, stochastic=stochastic, seed=2)
    a = fedcomp.simulate(p, "fedavgm", mu=0.5, **kw)
    case2 = fedcomp.simulate(p, "fedavg-case2", **kw)
    plain = fedcomp.simulate(p, "fedavgm", mu=0.0, **kw)
    np.testing.assert_array_equal(plain.x_bar, case2.x_bar)
    assert np.abs(a.x_bar - case2.x_bar).max() > 1e-3  # the momentum changes the run
    assert a.rounds == 10 and a.floats_by_variable == {"x": 120, "y": 4 * 5 * 11}
    pytest.importorskip("torch")
    b = fedcomp.simulate(p, "fedavgm", mu=0.5, backend="torch", device="cpu", **kw)
    np.testing.assert_allclose(b.x_bar, a.x_bar, rtol=0, atol=1e-10)
    assert (b.rounds, b.floats_by_variable) == (a.rounds, a.floats_by_variable)
