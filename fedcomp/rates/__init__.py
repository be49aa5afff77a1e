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
* :mod:`fedcomp.rates.checks` -- the registered checks;
  :mod:`fedcomp.rates.cli` -- ``fedcomp verify`` and ``fedcomp sweep``.
"""
from fedcomp.rates.fit import (ExponentFit, Verdict, combine, crossing, fit_exponent,
                               fit_statistic, upper_bound_verdict)
from fedcomp.rates.measure import Sweep, matrix, set_executor, summarize
from fedcomp.rates.schedules import SCHEDULES, ds_feddro, fedavg_modified, feddro

__all__ = ["ExponentFit", "Verdict", "combine", "crossing", "fit_exponent", "fit_statistic",
           "upper_bound_verdict", "Sweep", "matrix", "set_executor", "summarize", "SCHEDULES",
           "feddro", "ds_feddro", "fedavg_modified"]
