"""Measured convergence rates with confidence intervals, and verdicts on the papers' rate claims.

* :mod:`fedcomp.rates.schedules` -- step sizes, momentum and local steps as functions of (T, K)
  from Theorems 4.2, 4.3 and 5.2 of the FedDRO paper.
* :mod:`fedcomp.rates.measure` -- sweeps over (T, K) and seeds (run through
  :mod:`fedcomp.runner`) and the per-run measured quantities. The quantity the theorems bound,
  E||grad Phi(xbar^{a(T)})||^2 with a(T) uniform on {1..T}, is estimated by the mean of the exact
  ||grad Phi(xbar^t)||^2 over the recorded iterates t in [1, T] (every iterate when
  record_every = 1, a Riemann sum otherwise) and over seeds; final-iterate variants too.
* :mod:`fedcomp.rates.fit` -- log-log exponent fits with seed-bootstrap and regression intervals;
  upper-bound verdicts (pass / fail / inconclusive).
* :mod:`fedcomp.rates.analysis` -- exponents in T and K, linear speed-up, communication against eps.
* :mod:`fedcomp.rates.feddro`, :mod:`fedcomp.rates.fcsg`, :mod:`fedcomp.rates.auc` -- the
  measurements behind the papers' rate claims; :mod:`fedcomp.rates.cli` -- ``fedcomp sweep``.

The names below are imported on first use (the fits import scipy.stats, the sweeps pandas: a
``fedcomp`` command that needs neither, ``fedcomp --help`` among them, does not pay for them).
``fedcomp.rates.feddro`` is the module of FedDRO's measurements; FedDRO's schedule (Theorem 4.3)
is ``fedcomp.rates.schedules.feddro``. (It was also re-exported here as ``feddro``, which the
module replaced as soon as it was imported: the name meant two things.)
"""
from __future__ import annotations

from fedcomp._lazy import lazy_exports

_NAMES = {
    "ExponentFit": "fit", "Verdict": "fit", "combine": "fit", "crossing": "fit",
    "fit_exponent": "fit", "fit_statistic": "fit", "upper_bound_verdict": "fit",
    "Sweep": "measure", "matrix": "measure", "set_executor": "measure", "summarize": "measure",
    "SCHEDULES": "schedules", "ds_feddro": "schedules", "fedavg_modified": "schedules",
}

__all__ = sorted(_NAMES)

__getattr__ = lazy_exports(__name__, _NAMES)
