"""numba's disk cache follows fedcomp's imports (fedcomp._numba_cache): editing a module that a
cached kernel imports (and inlines) recompiles the kernel instead of running the old code."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import fedcomp
from fedcomp import _numba_cache as C

CALL = textwrap.dedent("""
    import numpy as np
    import fedcomp
    from fedcomp.problems import _chi2_kernels as K
    p = fedcomp.problems.Chi2DRO.synthetic(dim=4, num_clients=2, batch_size=3, seed=0)
    out = np.empty(1)
    K.g_value(p.data, 0, np.full(4, 0.3), np.uint64(7), True, out)
    print(fedcomp.__file__)
    print(repr(float(out[0])))
""")


def test_the_closure_of_a_kernel_module_is_every_fedcomp_module_it_imports():
    files = {str(f.relative_to(C.ROOT)) for f in C.closure(C.ROOT / "problems/_chi2_kernels.py")}
    assert {"problems/_chi2_kernels.py", "problems/_logistic.py", "engine/dense.py",
            "engine/simd.py", "rng.py"} <= files
    assert not any(f.startswith(("checks", "report", "figures")) for f in files)


def test_fedcomp_functions_get_the_closure_locator():
    from fedcomp.problems import _chi2_kernels as K
    locator = K.g_value._cache._impl.locator
    assert type(locator).__name__.startswith("Fedcomp")
    own, closure = locator.get_source_stamp()
    assert closure == C.stamp(Path(K.__file__))


def test_editing_an_imported_module_invalidates_the_cached_kernel(tmp_path):
    """Copy the package, compute a chi^2 kernel (compiled and cached), then change
    fedcomp.engine.dense.row_dot, which it inlines through the logistic helpers: the next
    process must compute the new value, not load the old machine code (numba alone checks only
    _chi2_kernels.py)."""
    pkg = tmp_path / "src" / "fedcomp"
    shutil.copytree(Path(fedcomp.__file__).parent, pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    # -S: no site processing, so that an editable install's import hook cannot send
    # `import fedcomp` back to the checkout; the libraries come from their own directory
    site = Path(np.__file__).parent.parent
    env = {"PYTHONPATH": f"{pkg.parent}{os.pathsep}{site}",
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "FEDCOMP_CACHE_DIR": str(tmp_path / "fc"),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def value():
        r = subprocess.run([sys.executable, "-S", "-c", CALL], env=env, cwd=tmp_path,
                           capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        where, val = r.stdout.strip().splitlines()[-2:]
        assert Path(where).resolve() == pkg.resolve() / "__init__.py"
        return float(val)

    before = value()
    assert value() == before                      # the cached kernel: same value
    dense = pkg / "engine" / "dense.py"   # row_dot, which the logistic loss inlines: x doubled
    dsrc = dense.read_text()
    marker = '    """F[i] . x in the module\'s order (that of :func:`affine` with b[i] = 0.0)."""\n'
    assert marker in dsrc
    dense.write_text(dsrc.replace(marker + "    d = F.shape[1]\n",
                                  marker + "    x = 2.0 * x\n    d = F.shape[1]\n", 1))
    after = value()
    assert after != before, "the kernel ran the cached code of the old dense.row_dot"
