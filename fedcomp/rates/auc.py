"""Measurements of LocalSCGDAM on the AUC min-max (AUC paper, Zhang et al.): the Theorem 1 /
Remark 1 sweep and the client-product bias (claims ``zhang.thm1`` and ``fedcomp.localscgdam-bias``,
judged in :mod:`fedcomp.checks.zhang`).

* :func:`thm1_sweep`: (1/T) sum_t ||grad Phi(xbar_t)||^2 of LocalSCGDAM with Remark 1's orders
  (eta = ETA_C sqrt(K/T), p = round(T^(1/4)/K^(3/4))) over a grid of T at K = 4 and over a grid
  of K at fixed T, on :class:`fedcomp.problems.AUCMinimax` (linear scorer, imbalanced
  heterogeneous clients).
* :func:`bias_measurement`: LocalSCGDAM's stochastic compositional gradient
  grad g^(k)(x)^T grad_g f^(k)(h, y) pairs client k's inner Jacobian with client k's outer
  gradient, so its mean over clients is (1/K) sum_k J_k^T grad f^(k), not
  grad Phi = Jbar^T (1/K) sum_k grad f^(k) of problem (4): under two-level heterogeneity the
  algorithm's fixed points are not stationary points of Phi.
* :func:`heterogeneous_sweep`: Theorem 1 + Remark 1 on a problem that meets Assumptions 1-4
  globally and where that bias shows (:class:`fedcomp.problems.LogCoshMinimax`, a = (1, 3),
  b = (0, 2), mu = 1): exact oracles, Theorem 1's largest admissible constants
  (:func:`fedcomp.theory.schedules.prescribe`) and Remark 1's eta = sqrt(K/T),
  p = round(T^(1/4)/K^(3/4)); claim ``zhang.thm1.heterogeneous``.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from fedcomp.rates.measure import diverged_runs

K_DEFAULT = 4
# Theorem 1 asks for gamma_x << gamma_y and strongly damped momenta (gamma_y <=
# 3 mu beta_y^2 / (400 L_f^2)); these values respect the ordering (gamma_x < gamma_y, beta large
# against gamma_y) without the theorem's tiny constants. With beta = 1 and gamma_y = 20 the
# exact-oracle dynamics can cycle or blow up (observed), which is outside the theorem's conditions.
HYPER = {"gamma_x": 1.0, "gamma_y": 4.0, "alpha": 8.0, "beta_x": 8.0, "beta_y": 8.0}
PROBLEM = "fedcomp.rates.auc:problem"
ETA_C = 1.0           # eta = ETA_C sqrt(K / T); eta <= 1/8 needs T >= 64 K ETA_C^2
PROFILES = {
    "quick": {"T": [2048, 4096, 8192, 16384], "seeds": 4, "K": [4, 8, 16, 32], "T_K": 32768,
              "seeds_K": 8},
    "full": {"T": [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144], "seeds": 8,
             "K": [4, 8, 16, 32], "T_K": 32768, "seeds_K": 8},
}


def _profile(profile: str) -> dict:
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
    return PROFILES[profile]


def problem(num_clients: int = K_DEFAULT, seed: int = 0):
    """The sweep's problem: linear scorer, d_w = 5 + intercept, 100 rows per client, local
    positive ratios cycling through 0.05, 0.1, 0.2, 0.3 (global mixture 0.1625 at K = 4),
    feature shift 0.5, rho = 0.5, minibatches of 8."""
    from fedcomp.problems.auc import AUCMinimax
    ratios = [[0.05, 0.1, 0.2, 0.3][k % 4] for k in range(num_clients)]
    return AUCMinimax.synthetic(num_clients=num_clients, dim=5, samples_per_client=100,
                                positive_ratio=ratios, feature_shift=0.5, rho=0.5,
                                batch_size=8, seed=seed)


def theorem1_constants(num_clients: int = K_DEFAULT) -> dict:
    """The constants of Theorem 1's conditions on the sweep's problem: its
    ``auc_constants`` on ||u|| <= 10, |alpha| <= 10 (one home for the zhang.thm1 checks'
    schedules)."""
    return problem(num_clients).auc_constants(radius_u=10.0, radius_alpha=10.0)


def schedule(T: int, K: int) -> tuple[float, int]:
    """Remark 1's orders with the sweep's constants: eta = ETA_C sqrt(K/T),
    p = max(1, round(T^(1/4) / K^(3/4)))."""
    return ETA_C * math.sqrt(K / T), max(1, round(T ** 0.25 / K ** 0.75))


def identical_clients(num_clients: int = K_DEFAULT, kind: str = "client0"):
    """The control problems of :func:`bias_measurement`: every client holds client 0's rows of
    :func:`problem` (``kind="client0"``) or all of its rows (``"union"``)."""
    from fedcomp.problems.auc import AUCMinimax
    prob = problem(num_clients)
    if kind == "client0":
        rows = slice(prob.offsets[0], prob.offsets[1])
        Z, L = prob.Z[rows], prob.L[rows]
    elif kind == "union":
        Z, L = prob.Z, prob.L
    else:
        raise ValueError(f"kind must be 'client0' or 'union', got {kind!r}")
    return AUCMinimax([Z] * num_clients, [L] * num_clients, rho=prob.rho,
                      batch_size=prob.batch_size)


#: records per run of Theorem 1's average (:func:`theorem1_average`)
RECORDS = 256


def theorem1_average(r) -> float:
    """Theorem 1's (1/T) sum_t ||grad Phi(xbar_t)||^2 of one run, as the Riemann sum over its
    evenly spaced records t >= 1; NaN for a diverged run."""
    return math.nan if r.diverged else float(np.mean(r.grad_norm_sq[1:]))


def run_point(prob, T: int, K: int, seeds: int):
    """`prob`: (constructor path, arguments) of the problem. Per seed: the mean of
    ||grad Phi(xbar_t)||^2 over the recorded t in [1, T] (256 evenly spaced records: a Riemann
    sum of Theorem 1's average), and the rounds; NaN for a diverged run, which the last item
    names with its iteration (:func:`fedcomp.rates.measure.diverged_runs`)."""
    from fedcomp.runner.results import run_many
    eta, p = schedule(T, K)
    batch = run_many(*prob, "localscgdam", seeds=range(seeds), iterations=T, eta=eta,
                     local_steps=p, record_every=max(1, T // RECORDS), **HYPER)
    vals = np.array([theorem1_average(r) for r in batch.runs])
    rounds = np.array([r.rounds for r in batch.runs])
    return vals, rounds, eta, p, diverged_runs(batch.runs, T=T, K=K)


def thm1_sweep(profile: str, out_dir) -> dict:
    """The T grid at K = 4 and the K grid at fixed T (module docstring), JSON-able: the grids,
    the per-seed values (NaN: diverged), the runs' schedule and rounds, and the figure."""
    cfg = _profile(profile)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    K = K_DEFAULT
    prob = (PROBLEM, {"num_clients": K})
    vals = np.full((cfg["seeds"], len(cfg["T"])), np.nan)
    runs, diverged = [], []
    for j, T in enumerate(cfg["T"]):
        v, rounds, eta, p, div = run_point(prob, T, K, cfg["seeds"])
        vals[:, j] = v
        diverged += div
        runs.append({"T": T, "K": K, "eta": eta, "p": p, "rounds": [int(r) for r in rounds],
                     "mean_grad_norm_sq": _mean_or_none(v), "diverged": len(div)})
    kv = np.full((cfg["seeds_K"], len(cfg["K"])), np.nan)
    for j, Kj in enumerate(cfg["K"]):
        v, rounds, eta, p, div = run_point((PROBLEM, {"num_clients": Kj}), cfg["T_K"], Kj,
                                           cfg["seeds_K"])
        kv[:, j] = v
        diverged += div
        runs.append({"T": cfg["T_K"], "K": Kj, "eta": eta, "p": p,
                     "rounds": [int(r) for r in rounds], "mean_grad_norm_sq": _mean_or_none(v),
                     "diverged": len(div)})
    from fedcomp.figures import plot
    figures = [plot("figures/zhang.thm1-T-K.png", thm1_figure, cfg["T"], vals, cfg["K"], kv,
                    cfg["T_K"], slopes=(_slope_text(cfg["T"], vals), _slope_text(cfg["K"], kv)),
                    claims=("zhang.thm1",))]
    return {"T": list(cfg["T"]), "values_T": vals.tolist(), "K": list(cfg["K"]),
            "T_K": cfg["T_K"], "values_K": kv.tolist(), "seeds": cfg["seeds"],
            "seeds_K": cfg["seeds_K"], "runs": runs,
            "hyper": dict(HYPER), "eta_c": ETA_C, "figures": figures, "diverged_runs": diverged,
            "seconds": time.perf_counter() - t0}


def _mean_or_none(v) -> float | None:
    """The seed mean over the finite values; None (not NaN) when every seed diverged."""
    v = np.asarray(v, dtype=float)
    return float(np.mean(v[np.isfinite(v)])) if np.isfinite(v).any() else None


def _slope_text(x, values) -> str:
    """"slope s [low, high]" of the fit the claim judges (fedcomp.rates.fit.fit_exponent on the
    same values), for the figure's legend; "" where no fit can be made."""
    from fedcomp.rates.fit import fit_exponent
    try:
        return f"slope {fit_exponent(x, values).text()} (95 %)"
    except ValueError:
        return ""


def thm1_figure(Ts, vals, Ks, kvals, T_K, slopes=("", "")):
    """(1/T) sum_t ||grad Phi(xbar_t)||^2 against T (K = 4) and against K (T = T_K): seeds as
    dots, their mean (with the fitted slope and its interval, `slopes`), and Remark 1's slopes
    through the first mean; ticks at the grid's points."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullLocator
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, x, v, name, fixed, slope in ((axes[0], Ts, vals, "T", f"K = {K_DEFAULT}", slopes[0]),
                                         (axes[1], Ks, kvals, "K", f"T = {T_K}", slopes[1])):
        x = np.asarray(x, float)
        v = np.asarray(v, float)
        ok = np.isfinite(v)                      # a diverged seed is NaN: left out
        ax.loglog(np.broadcast_to(x, v.shape)[ok], v[ok], ".", color="0.7", ms=3)
        keep = ok.any(axis=0)
        x, mean = x[keep], np.nanmean(v[:, keep], axis=0)
        ax.loglog(x, mean, "o-", label="LocalSCGDAM (mean over seeds)"
                  + (f": {slope}" if slope else ""))
        ax.loglog(x, mean[0] * (x / x[0]) ** -0.5, "--", label=f"{name}^(-1/2) (Remark 1)")
        ax.set_xticks(x, [f"{t:g}" for t in x], fontsize=7)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel(f"{name}  ({fixed})")
        ax.set_ylabel("(1/T) sum_t ||grad Phi(xbar_t)||^2")
        ax.legend(fontsize=7)
    fig.suptitle("AUC paper, Theorem 1 / Remark 1 (zhang.thm1): seeds (dots) and their mean",
                 fontsize=9)
    fig.tight_layout()
    return fig


def bias_measurement(profile: str) -> dict:
    """The client-product bias of LocalSCGDAM on the sweep's problem (K = 4).

    1. A stationary point x* of Phi (least squares on the exact grad Phi, from 0).
    2. The client-product direction D(x*) = (1/K) sum_k J_k(x*)^T grad f^(k)(g(x*), y*(x*)).
    3. Control: with every client holding client 0's data, max relative |D - grad Phi| at random
       points.
    4. LocalSCGDAM with exact oracles and p = 1 started at x*: how far it drifts from x* and the
       ||grad Phi||^2 it ends at, at two step sizes with eta T fixed (full profile: also Theorem
       1's sweep on the heterogeneous problem beside the same rows held by every client).
    5. Where the drift can end: a root x_D of D found by least squares from x* (the fixed points
       of the exact algorithm with p = 1 are the roots of D at y = y*(x)), with ||grad Phi(x_D)||^2
       and Phi(x_D) - Phi(x*), the Hessian's eigenvalues at x* (a flat direction: the AUC square
       loss does not change when the scores, a and b shift together), and three booleans the
       claim's detail is phrased on: whether that root is stationary, whether Phi is flat along a
       direction at x*, and whether the exact runs end lower at the smaller step. On the sweep's
       problem all three hold: the root the drift heads for is a stationary point, so the bias
       leaves no floor on ||grad Phi||^2 there."""
    from scipy.optimize import least_squares

    from fedcomp.runner.results import run
    from fedcomp.theory.constants import fd_hessian
    _profile(profile)
    t0 = time.perf_counter()
    prob = problem(K_DEFAULT)
    sol = least_squares(prob.grad, np.zeros(prob.dim), xtol=1e-15, ftol=1e-15, gtol=1e-15)
    xs = sol.x
    res2 = float(np.sum(prob.grad(xs) ** 2))
    D2 = float(np.sum(prob.client_product_gradient(xs) ** 2))
    same = identical_clients(prob.num_clients, "client0")
    rng = np.random.default_rng(0)
    ctrl = 0.0
    for _ in range(5):
        x = rng.standard_normal(prob.dim)
        g = same.grad(x)
        ctrl = max(ctrl, float(np.linalg.norm(same.client_product_gradient(x) - g)
                               / max(np.linalg.norm(g), 1e-300)))
    root = least_squares(prob.client_product_gradient, xs, xtol=1e-15, ftol=1e-15, gtol=1e-15).x
    runs = []
    for eta in (0.05, 0.0125):
        T = round(20000 * 0.05 / eta)
        r = run(PROBLEM, {"num_clients": K_DEFAULT}, "localscgdam", iterations=T, eta=eta,
                local_steps=1, x0=xs, stochastic=False, record_every=T, **HYPER)
        runs.append({"eta": eta, "T": T, "final_grad_norm_sq": float(r.grad_norm_sq[-1]),
                     "drift_from_x_star": float(np.linalg.norm(r.x_bar - xs)),
                     "final_client_product_sq": float(np.sum(
                         prob.client_product_gradient(r.x_bar) ** 2))})
    out = {"grad_phi_sq_at_x_star": res2, "client_product_sq_at_x_star": D2,
           "control_relative_difference": ctrl, "exact_runs_from_x_star": runs,
           "client_product_root": {
               "client_product_sq": float(np.sum(prob.client_product_gradient(root) ** 2)),
               "grad_phi_sq": float(np.sum(prob.grad(root) ** 2)),
               "distance_from_x_star": float(np.linalg.norm(root - xs)),
               "phi_minus_phi_star": float(prob.value(root) - prob.value(xs))},
           # Phi's flat direction: the Hessian at x* by central differences of the exact gradient
           "hessian_eigenvalues_at_x_star": [float(e) for e in np.linalg.eigvalsh(fd_hessian(
               prob.grad, xs, 1e-5))]}
    # what the numbers say, as booleans the detail is phrased on (thresholds fixed here):
    # the root of D is stationary when ||grad Phi(x_D)||^2 is below 1e-6 of the bias ||D(x*)||^2
    # at x*; a direction is flat when an eigenvalue is below 1e-6 of the largest in magnitude
    # (central differences with h = 1e-5 are accurate to about 1e-10 here); the exact runs'
    # final ||grad Phi||^2 falls with eta when the smaller step ends lower
    eig = np.abs(out["hessian_eigenvalues_at_x_star"])
    small_eta = min(runs, key=lambda r: r["eta"])
    large_eta = max(runs, key=lambda r: r["eta"])
    out["client_product_root"]["stationary"] = bool(
        out["client_product_root"]["grad_phi_sq"] < 1e-6 * D2)
    out["flat_direction_at_x_star"] = bool(eig.min() < 1e-6 * eig.max())
    out["final_falls_with_eta"] = bool(small_eta["final_grad_norm_sq"]
                                       < large_eta["final_grad_norm_sq"])
    if profile == "full":
        Ts = [2048, 8192, 32768, 131072]
        for label, P in (("heterogeneous", (PROBLEM, {"num_clients": K_DEFAULT})),
                         ("identical_clients", (__name__ + ":identical_clients",
                                                {"num_clients": K_DEFAULT, "kind": "union"}))):
            points = [run_point(P, T, K_DEFAULT, 4) for T in Ts]
            means = [_mean_or_none(pt[0]) for pt in points]
            slope = (float(np.polyfit(np.log(Ts), np.log(means), 1)[0])
                     if None not in means else None)      # a point every seed of which diverged
            out[f"thm1_sweep_{label}"] = {"T": Ts, "mean": means, "slope": slope,
                                          "diverged_runs": [d for pt in points for d in pt[4]]}
    out["seconds"] = time.perf_counter() - t0
    return out


# ============================================================================================
# Theorem 1 + Remark 1 where the client-product bias shows (claim zhang.thm1.heterogeneous)
# ============================================================================================
#: K = 2 clients, d = 1: g_k(x) = a_k x, f_k(z, y) = log cosh(z - b_k) - (mu/2) y^2 (the
#: counterexample; fedcomp.problems.minimax documents the family and its closed forms)
HETERO_PROBLEM = ("fedcomp.problems.minimax:LogCoshMinimax",
                  {"a": [[1.0], [3.0]], "b": [[0.0], [2.0]], "mu": 1.0, "noise": 0.0})
#: Theorem 1's free constants alpha, beta_x, beta_y. gamma_x is bound by
#: gamma_y mu^2 / (20 C_g^2 L_f^2) with gamma_y <= 1/(6 L_f) for any alpha, beta: at 20 both
#: steps are already the largest any alpha, beta admit (heterogeneous_sweep checks it with
#: prescribe), and alpha eta, beta eta <= 1 for T >= 800 (K = 2)
HETERO_FREE = {"alpha": 20.0, "beta_x": 20.0, "beta_y": 20.0}
#: T grids (x0 = 0): below about 1e6 the average still falls from ||grad Phi(x0)||^2 while xbar
#: travels (the effective step gamma_x eta = 9.3e-4 sqrt(2/T) is small); from 1e6 on it rises
#: towards ||grad Phi(x_D)||^2 (quick: about 3 s of runs; full: about 25 s)
HETERO_PROFILES = {"quick": {"T": [10 ** 6 * 2 ** j for j in range(5)]},
                   "full": {"T": [10 ** 6 * 2 ** j for j in range(8)]}}


def hetero_instance_text() -> str:
    """The counterexample's instance as the claim's texts name it ("a = (1, 3), b = (0, 2),
    mu = 1"; one coordinate per client, d = 1)."""
    args = HETERO_PROBLEM[1]

    def vec(rows):
        return "(" + ", ".join(f"{r[0]:g}" for r in rows) + ")"
    return f"a = {vec(args['a'])}, b = {vec(args['b'])}, mu = {args['mu']:g}"


def _hetero_profile(profile: str) -> dict:
    if profile not in HETERO_PROFILES:
        raise ValueError(f"profile must be one of {sorted(HETERO_PROFILES)}, got {profile!r}")
    return HETERO_PROFILES[profile]


def heterogeneous_schedule(constants: dict, T: int, K: int):
    """Theorem 1's schedule at (T, K) with :data:`HETERO_FREE` (c_eta = c_I = 1: Remark 1's
    eta = sqrt(K/T), p = round(T^(1/4)/K^(3/4))), as :func:`fedcomp.theory.schedules.prescribe`
    computes it (the one home of the theorem's conditions), and a JSON-able row: eta, Remark 1's
    uncapped eta, Theorem 1's cap on eta, p, whether every condition holds (``valid``) and
    whether eta is Remark 1's uncapped value."""
    from fedcomp.theory.schedules import prescribe
    sc = prescribe("localscgdam", constants, T=T, K=K, **HETERO_FREE)
    eta = sc.kwargs["eta"]
    ratio = next(c["value"] for c in sc.conditions if c["name"] == "eta / cap of Theorem 1")
    eta_remark = math.sqrt(K / T)
    row = {"T": int(T), "K": int(K), "eta": eta, "eta_remark": eta_remark, "cap": eta / ratio,
           "p": int(sc.kwargs["local_steps"]), "valid": bool(sc.valid),
           "uncapped": bool(eta == eta_remark)}
    return sc, row


def heterogeneous_sweep(profile: str, out_dir) -> dict:
    """LocalSCGDAM (exact oracles, x0 = 0) on :data:`HETERO_PROBLEM` over the profile's T grid
    (K = 2), each run with the schedule Theorem 1 and Remark 1 prescribe
    (:func:`heterogeneous_schedule`): per T the average (1/T) sum_t ||grad Phi(xbar_t)||^2 as a
    Riemann sum over 256 evenly spaced records (as :func:`run_point`), the final xbar, the
    rounds; and the closed forms of the problem: x* (grad Phi = 0), x_D (the root of the
    client-product direction D, where the exact dynamics head), ||grad Phi(x_D)||^2 (the floor),
    D(x*). Also checked with prescribe: that the gammas used are the largest Theorem 1 admits
    for any alpha, beta (their values at alpha = beta_x = beta_y = 1e12), and that a positive
    L_g (Assumption 1 asks for L_g > 0; g is linear, so any holds) gives the same schedule."""
    from fedcomp.problems.minimax import LogCoshMinimax
    from fedcomp.runner.results import run
    from fedcomp.theory.constants import auc_lemma2
    from fedcomp.theory.schedules import prescribe
    cfg = _hetero_profile(profile)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    path, args = HETERO_PROBLEM
    prob = LogCoshMinimax(**args)
    K = prob.num_clients
    c = prob.zhang_constants()
    x_star = prob.stationary_point()
    x_D = prob.client_product_root()
    closed = {"x_star": x_star.tolist(), "x_D": x_D.tolist(),
              "grad_phi_sq_at_x_D": float(np.sum(prob.grad(x_D) ** 2)),
              "grad_phi_sq_at_x_star": float(np.sum(prob.grad(x_star) ** 2)),
              "D_at_x_star": prob.client_product_gradient(x_star).tolist(),
              "grad_phi_sq_at_x0": float(np.sum(prob.grad(np.zeros(prob.dim)) ** 2))}
    T0 = cfg["T"][0]
    base = prescribe("localscgdam", c, T=T0, K=K, **HETERO_FREE).kwargs
    sup = prescribe("localscgdam", c, T=T0, K=K, alpha=1e12, beta_x=1e12, beta_y=1e12).kwargs
    pos = prescribe("localscgdam", {**c, "L_g": 1e-6}, T=T0, K=K, **HETERO_FREE).kwargs
    checks = {"largest_admissible_gammas": bool(base["gamma_x"] == sup["gamma_x"]
                                                and base["gamma_y"] == sup["gamma_y"]),
              "same_schedule_with_L_g_1e-6": bool(all(
                  math.isclose(base[k], pos[k], rel_tol=1e-9) for k in base))}
    rows, values, diverged = [], [], []
    for T in cfg["T"]:
        sc, row = heterogeneous_schedule(c, T, K)
        kw = dict(sc.kwargs)
        eta, p = kw.pop("eta"), kw.pop("local_steps")
        r = run(path, args, "localscgdam", iterations=T, eta=eta, local_steps=p,
                stochastic=False, record_every=max(1, T // RECORDS), **kw)
        v = theorem1_average(r)
        diverged += diverged_runs([r], T=T, K=K)
        values.append(v)
        row.update({"mean_grad_norm_sq": None if math.isnan(v) else v,
                    "final_x_bar": r.x_bar.tolist(), "rounds": int(r.rounds)})
        rows.append(row)
    from fedcomp.figures import plot
    figures = [plot("figures/zhang.thm1.heterogeneous-T.png", heterogeneous_figure, cfg["T"],
                    values, closed["grad_phi_sq_at_x_D"], claims=("zhang.thm1.heterogeneous",))]
    hyper = {k: base[k] for k in ("gamma_x", "gamma_y", "alpha", "beta_x", "beta_y")}
    return {"T": list(cfg["T"]), "values": values, "K": K, "runs": rows, "closed_form": closed,
            "constants": {**{k: c[k] for k in ("C_g", "C_f", "L_f", "L_g", "mu")},
                          "L_phi_lemma2": auc_lemma2(c["C_g"], c["C_f"], c["L_f"], c["L_g"],
                                                     c["mu"])},
            "hyper": hyper, "schedule_checks": checks, "problem": {"path": path, "args": args},
            "figures": figures, "diverged_runs": diverged,
            "seconds": time.perf_counter() - t0}


def heterogeneous_figure(Ts, values, floor):
    """(1/T) sum_t ||grad Phi(xbar_t)||^2 against T, Remark 1's T^(-1/2) through the first point,
    and the floor ||grad Phi(x_D)||^2 the exact dynamics head for (dashed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = np.asarray(Ts, float)
    v = np.asarray(values, float)
    ok = np.isfinite(v)
    fig, ax = plt.subplots(figsize=(5.4, 3.8))
    ax.loglog(x[ok], v[ok], "o-", label="LocalSCGDAM, exact oracles, Theorem 1's constants")
    if ok.any():
        x0, v0 = x[ok][0], v[ok][0]
        ax.loglog(x, v0 * (x / x0) ** -0.5, ":", label="T^(-1/2) (Theorem 1 + Remark 1)")
    ax.axhline(floor, ls="--", color="0.4", label="||grad Phi(x_D)||^2 (root of D)")
    ax.set_xlabel("T  (K = 2)")
    ax.set_ylabel("(1/T) sum_t ||grad Phi(xbar_t)||^2")
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("AUC paper, Theorem 1 / Remark 1 on g_k = a_k x, f_k = log cosh(z - b_k)\n"
                 "(zhang.thm1.heterogeneous)", fontsize=8)
    fig.tight_layout()
    return fig


def auc_standard_error(auc: float, n_pos: int, n_neg: int) -> float:
    """Hanley and McNeil's (1982) standard error of an empirical AUC on n_pos positive and n_neg
    negative test points (test-set sampling only)."""
    if not 0.0 <= auc <= 1.0:
        raise ValueError(f"auc must be in [0, 1], got {auc!r}")
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"n_pos and n_neg must be >= 1, got {n_pos!r}, {n_neg!r}")
    q1 = auc / (2.0 - auc)
    q2 = 2.0 * auc * auc / (1.0 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc)
           + (n_neg - 1) * (q2 - auc * auc)) / (n_pos * n_neg)
    return math.sqrt(max(var, 0.0))
