"""Issue 14: one definition per algorithm, two backends.

* every registered algorithm is one definition (named state, schedule, numba and torch steps);
* the torch backend equals the compiled one to 1e-10 (float64) on every problem of each
  algorithm that has a torch form, with exact and with stochastic oracles (same seed: same
  samples);
* bad input is refused identically by both backends (``check_hyper`` runs for both);
* every compiled kernel runs on tiny problems with numba's bounds checking on (a subprocess with
  its own caches, so the normal cache is untouched; kept between sessions, keyed by the source
  of the compiled code), and no compiled function is specialised on a literal argument (a
  constant ``0`` or ``True`` passed to a compiled callee compiles it, and all it calls, a second
  time: seconds of every cold start).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fedcomp
from fedcomp.algorithms import get, names

import backend_cases as C

HERE = Path(__file__).resolve().parent



def test_every_algorithm_has_cases_and_both_backends():
    assert set(C.HYPER) == set(names()), "add the new algorithm to tests/backend_cases.HYPER"
    missing = [n for n in names() if get(n).torch is None]
    assert not missing, (f"{missing} have no torch steps: every algorithm is one definition "
                         f"with numba and torch steps (fedcomp.algorithms.spec)")




def _step_functions(alg):
    from fedcomp.algorithms.spec import Server
    from fedcomp.engine.build import _helpers
    fns = [f for steps in (alg.numba, alg.torch) if steps is not None
           for f in (steps.client, steps.init) if f is not None]
    fns += [f for e in alg.schedule if isinstance(e, Server) for f in (e.numba, e.torch)
            if f is not None]
    return fns + _helpers(fns)


@pytest.mark.parametrize("name", names())
def test_steps_import_every_name_they_call(name):
    """A reader and a linter can follow every call: each global name a step or helper uses is
    bound in its own module (the oracles to the placeholders of fedcomp.algorithms.oracles)."""
    import builtins
    import dis
    for fn in _step_functions(get(name)):
        unbound = {i.argval for i in dis.get_instructions(fn) if i.opname == "LOAD_GLOBAL"
                   and i.argval not in fn.__globals__ and not hasattr(builtins, i.argval)}
        assert not unbound, f"{fn.__module__}.{fn.__name__} uses {sorted(unbound)} unimported"


@pytest.fixture(scope="module")
def cases():
    return C.problems()


@pytest.mark.neural
def test_each_algorithm_has_a_problem_with_a_torch_form(cases):
    pytest.importorskip("torch")
    from fedcomp.neural.synthetic import supported
    for name in names():
        assert any(type(p).__name__ in supported() for _, p in C.pairs(name, cases)), name


@pytest.mark.neural
@pytest.mark.parametrize("stochastic", [False, True])
@pytest.mark.parametrize("name", names())
def test_backends_agree(name, stochastic, cases):
    pytest.importorskip("torch")
    from fedcomp.neural.synthetic import supported
    ran = 0
    for pn, p in C.pairs(name, cases):
        if type(p).__name__ not in supported():
            continue
        kw = dict(iterations=12, eta=0.1, local_steps=C.local_steps(name), seed=11, x0=C.x0(p),
                  stochastic=stochastic, **C.HYPER[name])
        a = fedcomp.simulate(p, name, **kw)
        b = fedcomp.simulate(p, name, backend="torch", device="cpu", **kw)
        assert a.diverged_at is None and b.diverged_at is None, pn
        # the runs moved: the comparison is not between two copies of x0
        assert np.abs(a.x_bar - C.x0(p)).max() > 1e-3, pn
        np.testing.assert_allclose(b.x_bar, a.x_bar, rtol=0, atol=1e-10, err_msg=pn)
        np.testing.assert_array_equal(b.t, a.t)
        for m in ("grad_norm_sq", "value", "consensus", "inner_error"):
            np.testing.assert_allclose(getattr(b, m), getattr(a, m), rtol=1e-10, atol=1e-13,
                                       err_msg=f"{pn} {m}")
        assert (b.rounds, b.floats_by_variable) == (a.rounds, a.floats_by_variable), pn
        ran += 1
    assert ran, f"{name} has no problem with a torch form"


@pytest.mark.neural
def test_both_backends_refuse_the_same_bad_input(cases):
    pytest.importorskip("torch")
    p = cases["linear"]
    for backend in ("numba", "torch"):
        with pytest.raises(ValueError, match="beta"):
            fedcomp.simulate(p, "feddro", iterations=4, beta=1.5, backend=backend)
        with pytest.raises(ValueError, match="local_steps must be 1"):
            fedcomp.simulate(p, "mbsgd", iterations=4, local_steps=2, backend=backend)
    with pytest.raises(ValueError, match="backend must be"):
        fedcomp.simulate(p, "feddro", iterations=4, beta=0.5, backend="jax")
    with pytest.raises(ValueError, match="needs backend='torch'"):
        fedcomp.simulate(p, "feddro", iterations=4, beta=0.5, device="cuda")
    # an unsupported problem names the supported ones
    with pytest.raises(ValueError, match="LinearQuadratic"):
        fedcomp.simulate(cases["chi2-dro"], "feddro", iterations=4, beta=0.5, backend="torch")
    # an algorithm registered without torch steps (this test's own) names those that have them
    from fedcomp.algorithms import Algorithm, base, register
    from fedcomp.algorithms.fedavg import fedavg_client, inner_value_init
    from fedcomp.algorithms.spec import Average, ModelRound, State, Steps
    register(Algorithm(name="numba-only", citation="test", ledger_slots=("x", "y"),
                       state=State(scratch={"v": "dg", "gx": "d", "hx": "d"}),
                       schedule=(Average(var="y", when="init"), Average(var="x"), ModelRound()),
                       numba=Steps(fedavg_client, inner_value_init)))
    try:
        with pytest.raises(ValueError, match="no torch steps yet; backend='torch' runs .*feddro"):
            fedcomp.simulate(p, "numba-only", iterations=4, backend="torch")
    finally:
        base._REGISTRY.pop("numba-only")
    with pytest.raises(ValueError, match="numba=Steps"):
        Algorithm(name="no-steps", citation="test")


_BOUNDS_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import fedcomp
import backend_cases as C
cases = C.problems()
out = {}
for name in fedcomp.algorithms.names():
    ran = []
    for pn, p in C.pairs(name, cases)[:2]:
        for stochastic in (False, True):
            r = fedcomp.simulate(p, name, iterations=6, eta=0.05, local_steps=C.local_steps(name),
                                 x0=C.x0(p), stochastic=stochastic, seed=1, **C.HYPER[name])
            ran.append([pn, stochastic, bool(np.isfinite(r.x_bar).all())])
    out[name] = ran
# the check can fail: a definition whose scratch v is one entry short (f_grad writes d_g)
from fedcomp.algorithms import Algorithm, register
from fedcomp.algorithms.fedavg import fedavg_client, inner_value_init
from fedcomp.algorithms.spec import Average, ModelRound, State, Steps
register(Algorithm(name="short-scratch", citation="test", ledger_slots=("x", "y"),
                   state=State(scratch={"v": "dg - 1", "gx": "d", "hx": "d"}),
                   schedule=(Average(var="y", when="init"), Average(var="x"), ModelRound()),
                   numba=Steps(fedavg_client, inner_value_init)))
try:
    fedcomp.simulate(cases["linear"], "short-scratch", iterations=2)
    out["short-scratch"] = "ran"
except IndexError as exc:
    out["short-scratch"] = "IndexError: " + str(exc)
# every fedcomp function numba compiled in this process, and those specialised on a literal
# argument (a constant 0 or True passed to a compiled callee: one more compilation of the callee
# and of everything it calls, for nothing)
import gc
from numba.core.registry import CPUDispatcher
sigs = [(f"{o.py_func.__module__}.{o.py_func.__name__}", str(s)) for o in gc.get_objects()
        if isinstance(o, CPUDispatcher) and o.py_func.__module__.startswith(("fedcomp", "fcgen_"))
        for s in o.signatures]
out["compiled"] = len(sigs)
out["literal"] = sorted({f"{f}{s}" for f, s in sigs if "Literal[" in s})
print(json.dumps(out))
"""


def _bounds_cache_dir() -> Path:
    """The bounds-checked kernels' own cache, kept between sessions (compiling the 33 kernels
    takes about 4 minutes, loading them about 2 seconds): a directory next to the normal kernel
    cache, named by a hash of the source of every fedcomp module that compiled code comes from
    (the engine's own dependency rule, fedcomp.engine.build._fedcomp_deps, from every problem
    and algorithm module) and of the numba settings. Any edit of compiled code therefore gets a
    fresh directory, so that no kernel, not even a problem kernel numba caches by its own file
    only, is reused stale; numba's cache key does not record NUMBA_BOUNDSCHECK, which is why
    these kernels never share a directory with the normal ones."""
    import hashlib
    import pkgutil

    import fedcomp.algorithms
    import fedcomp.problems
    from fedcomp.engine import build
    roots = [m.name for pkg in (fedcomp.problems, fedcomp.algorithms)
             for m in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + ".")]
    h = hashlib.sha256(repr(sorted(_BOUNDS_ENV.items())).encode() + b"literal-check")
    for dep in build._fedcomp_deps([*roots, *build._DEP_MODULES]):
        h.update(dep.encode() + build._module_source(dep).encode())
    from fedcomp.engine.kernel_cache import BOUNDSCHECK
    return build.cache_dir() / f"{BOUNDSCHECK}{h.hexdigest()[:16]}"


# NUMBA_OPT=1: the bounds checks are inserted when the code is lowered and LLVM's optimisation
# level does not remove a reachable one; level 1 compiles these kernels about 15% faster than
# the default 3 (212 s against 247 s cold, on one core)
_BOUNDS_ENV = {"NUMBA_BOUNDSCHECK": "1", "NUMBA_OPT": "1"}


def test_every_kernel_runs_with_bounds_checking():
    """NUMBA_BOUNDSCHECK=1 turns an out-of-range index in any compiled step into an IndexError;
    the subprocess has its own kernel and numba caches (_bounds_cache_dir), so the normal cache
    is untouched."""
    cache = _bounds_cache_dir()
    env = dict(os.environ, **_BOUNDS_ENV, FEDCOMP_CACHE_DIR=str(cache),
               NUMBA_CACHE_DIR=str(cache / "numba"))
    proc = subprocess.run([sys.executable, "-c", _BOUNDS_SCRIPT, str(HERE)], env=env,
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("short-scratch").startswith("IndexError"), "bounds checking was not on"
    # The literal check needs the kernels compiled, not loaded from disk: the first run in the
    # cache directory (keyed by the compiled source) compiles them all and records its result.
    literal, compiled = out.pop("literal"), out.pop("compiled")
    record = cache / "literal-specialisations.json"
    if not record.exists() and compiled:
        record.write_text(json.dumps(literal))
    assert record.exists(), f"no record of a compiling run in {cache}: delete it and rerun"
    literal = json.loads(record.read_text())
    assert not literal, ("compiled for a literal argument (pass np.int64(0) / np.bool_(True), "
                         f"or start a loop index at np.int64(0)): {literal}")
    assert set(out) == set(names())
    for name, ran in out.items():
        assert ran, f"{name}: no tiny problem accepts it"
        assert all(ok for _, _, ok in ran), (name, ran)
