"""Which intermittent sharing works: the stationarity gap left by sharing the inner estimate only
every I iterations (an experiment no paper has; fedcomp claim ``fedcomp.intermittent-sharing-law``).

Setting. Theorem 4.1 of the FedDRO paper: FedAvg (Algorithm 1), whose clients use their own inner
value y_k = g_k(x_k) between synchronisations, stalls at a non-stationary point. DS-FedDRO
(Algorithm 3) also keeps local inner estimates y_k between rounds -- a moving average
y_k <- (1 - beta) y_k + beta g_k(x_k) -- and averages them only every I iterations, yet Theorem 5.2
claims convergence; LocalSCGDAM (AUC paper (11)-(14)) does the same with weight alpha * eta.
FedDRO (Algorithm 2) shares y every iteration and converges exactly.

What we measure. Deterministic runs (exact oracles) on linear-quadratic problems
g_k(x) = A_k x + b_k, f = 0.5 ||.||^2 with *controlled* heterogeneity: A_k = Abar + h E_k,
b_k = bbar + h e_k with sum_k E_k = 0, sum_k e_k = 0 (:func:`controlled_problem`), so Phi does not
change with h; the gap is ||grad Phi||^2 at the limit of the server models xbar_s (round
boundaries). Stochastic runs add oracle noise and report the mean of ||grad Phi||^2 over the last
half of the run and over seeds.

The law (derived here, then measured). Between two synchronisations, with x nearly frozen
(eta -> 0), client k's estimate after j local updates is y_k^j = ybar + (1 - (1 - beta)^j)
(g_k(x) - g(x)), and the round's mean drift of the model is
grad Phi(x) + c(beta, I) D(x) with

    c(beta, I) = (1/I) sum_{j<I} (1 - (1 - beta)^j) = 1 - (1 - (1 - beta)^I) / (I beta)
               ~ beta (I - 1) / 2   for beta (I - 1) << 1,
    D(x) = (1/K) sum_k (A_k - Abar)^T (g_k(x) - g(x))   (= h^2 D_1(x): quadratic in h).

The limit x_c solves grad Phi(x) + c D(x) = 0 (a linear system here: :func:`predicted_limit`), so

    gap = ||grad Phi(x_c)||^2 = c^2 ||D(x_c)||^2  ~  (beta (I - 1) / 2)^2 h^4 ||D_1(x*)||^2,

the limit of the gap as eta -> 0, and independent of DS-FedDRO's server step sizes
(gamma_x = gamma_y = 0.5, 1, 1.5 give the same limit to 1e-12 at I = 5, beta = 0.04). At finite eta the clients' models also drift
apart within a round, which adds a term of order eta to the mean drift: gap(eta) =
||c D + eta E_I||^2 + ... On interpolating problems (f's gradient vanishes at g(x*), e.g.
d = d_g here) E is small and gap(eta) = gap_0 (1 + kappa eta) with kappa in [0.9, 2.5] on the quick
design; on non-interpolating ones (d < d_g) E is larger -- FedDRO itself (c = 0) keeps a gap
~ eta^2 h^4 (I - 1)^0.8 there (measured: exponents 2.00, 4.00, 0.82 at d = 3, d_g = 5) -- and the
closed form is reached only for smaller eta (I = 5, beta = 0.04: extrapolated / closed form
0.9994 from eta = 0.000625, 0.0025). FedAvg Case II is beta = 1: c = 1 - 1/I, a
gap for every eta (Theorem 4.1); FedDRO shares y every iteration: c = 0; DS-FedDRO with the
theorem's coupling beta = c_beta eta has c ~ c_beta eta (I - 1) / 2 -> 0 with eta: it converges
because, and only because, beta shrinks with the step size; LocalSCGDAM's weight alpha * eta is
the same coupling (measured on the AUC problem by :func:`localscgdam_excess`: the excess
vanishes with eta). :func:`sweep` measures the gap over (I, beta, eta, h), :func:`fit_law` fits
log gap = a + p_beta log beta + p_I log(I - 1) + p_h log h + p_eta log eta with 95 % intervals,
:func:`phase_figure` draws it, and :func:`law_measurement` is what the claim's check
(:mod:`fedcomp.checks.own`) judges. :func:`remedies` runs the FedDRO paper's Section 4.1 remedies
(momentum with a fixed weight and with one tied to eta, against FedAvg Case II and FedDRO) for
the claims ``khanduri.sec4.1.*`` (:mod:`fedcomp.checks.khanduri`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import fedcomp
from fedcomp import _validate as V
from fedcomp.problems.linear import LinearQuadratic
from fedcomp.runner.results import run, run_many

#: predicted exponents of (beta, I - 1, h, eta) in the small-c regime
PREDICTED_EXPONENTS = {"beta": 2.0, "I-1": 2.0, "heterogeneity": 4.0, "eta": 0.0}


def drift_factor(beta: float, I: int) -> float:
    """c(beta, I) = 1 - (1 - (1 - beta)^I) / (I beta): the mean weight of the local part of the
    inner estimate over one round (0 for I = 1; 1 - 1/I for beta = 1, FedAvg Case II)."""
    beta = V.real_in("beta", beta, 0.0, 1.0, high_open=False)
    I = V.positive_int("I", I)
    # the sum form avoids the cancellation of the closed form for small beta
    q = 1.0 - beta
    return float(sum(1.0 - q ** j for j in range(I)) / I)


def controlled_problem(heterogeneity: float, num_clients: int = 8, dim: int = 4,
                       inner_dim: int = 4, noise: float = 0.0, seed: int = 0,
                       huber_radius: float | None = None) -> LinearQuadratic:
    """Linear-quadratic problem whose client means Abar, bbar (hence Phi) do not depend on the
    heterogeneity h: A_k = Abar + h (A_k^1 - Abar), b_k = bbar + h (b_k^1 - bbar), where the
    A^1, b^1 are :meth:`LinearQuadratic.random` with heterogeneity 1. ``huber_radius``: f the
    Huber function of that radius (Lipschitz, the FedDRO paper's Assumption 3.2), equal to
    0.5 ||y||^2 inside the ball."""
    h = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
    base = LinearQuadratic.random(num_clients, dim, inner_dim, heterogeneity=1.0, seed=seed)
    A = base.Abar + h * (base.A - base.Abar)
    b = base.bbar + h * (base.b - base.bbar)
    return LinearQuadratic(A, b, noise=noise, huber_radius=huber_radius)


def _moments(p: LinearQuadratic):
    dA = p.A - p.Abar
    db = p.b - p.bbar
    K = p.num_clients
    return np.einsum("kij,kil->jl", dA, dA) / K, np.einsum("kij,ki->j", dA, db) / K


def heterogeneity_drift(p: LinearQuadratic, x) -> np.ndarray:
    """D(x) = (1/K) sum_k (A_k - Abar)^T (g_k(x) - g(x))."""
    caa, cab = _moments(p)
    return caa @ np.asarray(x, dtype=float) + cab


def scgdm_drift_factor(beta: float, I: int) -> float:
    """c'(beta, I) = (1/I) sum_{j=1..I} (1 - (1 - beta)^j): the drift weight of Local-SCGD(M)
    (:mod:`fedcomp.algorithms.local_scgd`), whose j-th direction of a round uses the inner
    estimate after j moving-average updates (it updates h before computing the direction, and
    the round averages after the round's last update), where DS-FedDRO's uses it after j - 1
    (:func:`drift_factor`); 1 for beta = 1 (every direction with the client's own inner value).
    A fixed gradient momentum leaves it unchanged: the mean of an exponential moving average
    over a periodic sequence is the sequence's mean."""
    beta = V.real_in("beta", beta, 0.0, 1.0, high_open=False)
    I = V.positive_int("I", I)
    q = 1.0 - beta
    return float(sum(1.0 - q ** j for j in range(1, I + 1)) / I)


def limit_at(p: LinearQuadratic, c: float):
    """(gap, x_c): the eta -> 0 limit of a method whose round's mean drift is
    grad Phi(x) + c D(x) on a linear-quadratic problem (module docstring): x_c solves
    grad Phi(x) + c D(x) = 0 (least squares if the system is singular)."""
    caa, cab = _moments(p)
    M = p.Abar.T @ p.Abar + c * caa
    r = p.Abar.T @ p.bbar + c * cab
    x = -np.linalg.lstsq(M, r, rcond=None)[0]
    return float(np.sum(p.grad(x) ** 2)), x


def predicted_limit(p: LinearQuadratic, beta: float, I: int):
    """(gap, x_c, c): the eta -> 0 limit of DS-FedDRO / FedAvg Case II (beta = 1) on a
    linear-quadratic problem (module docstring), c = c(beta, I)."""
    c = drift_factor(beta, I)
    return (*limit_at(p, c), c)


def _strong_convexity(p: LinearQuadratic) -> float:
    ev = np.linalg.eigvalsh(p.Abar.T @ p.Abar)
    pos = ev[ev > 1e-12 * max(ev.max(), 1e-300)]
    return float(pos.min()) if pos.size else 1.0


def measure(problem: LinearQuadratic, I: int, beta: float, eta: float,
            algorithm: str = "ds-feddro", stochastic: bool = False, seeds=(0,),
            iterations: int | None = None, server_lr: float = 1.0,
            momentum: float | None = None) -> dict:
    """Run `algorithm` and return the gap with its bookkeeping.

    Deterministic: the gap is ||grad Phi||^2 at the last round boundary of a run long enough for
    the round map to converge (``converged`` says whether the last two boundary records agree to
    1e-6 relative). Stochastic: the mean over seeds of the mean over the last half of the
    round-boundary records. The runs go through the runner (:mod:`fedcomp.runner.results`:
    the session's executor, and the store in scope).

    Parameters
    ----------
    problem : LinearQuadratic
    I : int >= 1
        Local steps between synchronisations.
    beta : float in (0, 1]
        Inner-estimate weight (ignored by ``fedavg-case2``, which is beta = 1).
    eta : float > 0
    algorithm : "ds-feddro", "feddro", "fedavg-case2" or "local-scgdm"
        (Local-SCGDM: ``beta`` is its inner weight, ``momentum`` its gradient momentum)
    stochastic : bool
    seeds : iterable of int
    iterations : int or None
        Default: 60 (1/beta + 1/(eta mu)) rounded up to a multiple of I, within [2e4, 6e5].
    server_lr : float > 0
        DS-FedDRO's gamma_x = gamma_y.
    momentum : float in (0, 1], only with ``local-scgdm`` (required there)

    The result also holds the run's ledger (deterministic runs): ``rounds`` and ``floats``
    ({variable: floats uploaded, summed over the clients}).
    """
    I = V.positive_int("I", I)
    beta = V.real_in("beta", beta, 0.0, 1.0, high_open=False)
    eta = V.real_in("eta", eta, 0.0)
    if algorithm not in ("ds-feddro", "feddro", "fedavg-case2", "local-scgdm"):
        raise ValueError(f"algorithm must be 'ds-feddro', 'feddro', 'fedavg-case2' or "
                         f"'local-scgdm', got {algorithm!r}")
    if (momentum is None) != (algorithm != "local-scgdm"):
        raise ValueError(f"momentum must be given with algorithm 'local-scgdm' and only there, "
                         f"got momentum={momentum!r} with {algorithm!r}")
    slowest = beta
    if momentum is not None:
        momentum = V.real_in("momentum", momentum, 0.0, 1.0, high_open=False)
        slowest = min(beta, momentum)
    mu = _strong_convexity(problem)
    if iterations is None:
        T = int(min(6e5, max(2e4, 60.0 * (1.0 / slowest + 1.0 / (eta * mu)))))
    else:
        T = V.positive_int("iterations", iterations)
    T = max(I, T - T % I)
    rec = I * max(1, T // (20 * I))
    hyper = {}
    if algorithm == "ds-feddro":
        hyper = dict(beta=beta, server_lr_x=server_lr, server_lr_y=server_lr)
    elif algorithm == "feddro":
        hyper = dict(beta=beta)
    elif algorithm == "local-scgdm":
        hyper = dict(beta=beta, momentum=momentum)
    seeds = list(seeds)
    if stochastic:
        batch = run_many(*problem.constructor(), algorithm, seeds=seeds, iterations=T,
                         eta=eta, local_steps=I, stochastic=True, record_every=rec, **hyper)
        vals, div = [], False
        for r in batch.runs:
            if r.diverged:
                div = True
                continue
            g = r.grad_norm_sq[r.t % I == 0]
            vals.append(float(np.mean(g[len(g) // 2:])))
        gap = float(np.mean(vals)) if vals else math.nan
        converged = not div
    else:
        r = run(*problem.constructor(), algorithm, iterations=T, eta=eta, local_steps=I,
                stochastic=False, record_every=rec, **hyper)
        g = r.grad_norm_sq[r.t % I == 0]
        gap = float(g[-1]) if not r.diverged else math.nan
        converged = (not r.diverged and len(g) > 1
                     and abs(g[-1] - g[-2]) <= 1e-6 * max(abs(g[-1]), 1e-300))
        ledger = {"rounds": int(r.rounds), "floats": dict(r.floats_by_variable)}
    return {"algorithm": algorithm, "I": I, "beta": 1.0 if algorithm == "fedavg-case2" else beta,
            "eta": eta, "iterations": T, "stochastic": bool(stochastic), "gap": gap,
            "converged": bool(converged), "noise": problem.noise,
            **({"momentum": momentum} if momentum is not None else {}),
            **({} if stochastic else ledger)}


def sweep(grid: list[dict], algorithm: str = "ds-feddro", stochastic: bool = False,
          noise: float = 0.0, seeds=(0,), problem_seed: int = 0, progress: bool = False):
    """Measure the gap on every point of `grid` (dicts with I, beta, eta, heterogeneity) and
    return a pandas DataFrame with the measured and the closed-form predicted gap."""
    import pandas as pd
    rows = []
    it = grid
    if progress:
        from tqdm import tqdm
        it = tqdm(grid, desc="intermittent sweep")
    for pt in it:
        p = controlled_problem(pt["heterogeneity"], noise=noise, seed=problem_seed)
        row = measure(p, pt["I"], pt["beta"], pt["eta"], algorithm=algorithm,
                      stochastic=stochastic, seeds=seeds)
        beta_eff = row["beta"]
        pred, _, c = predicted_limit(p, beta_eff, pt["I"])
        row.update(heterogeneity=pt["heterogeneity"], predicted=pred, c=c)
        rows.append(row)
    return pd.DataFrame(rows)


def fit_law(df, level: float = 0.95) -> dict:
    """OLS fit of log gap = a + p_beta log beta + p_I log(I - 1) + p_h log h + p_eta log eta on
    the rows of `df` (columns beta, I, heterogeneity, eta, gap); regressors that do not vary are
    left out. Returns exponents, their `level` intervals (Student t, n - p degrees of freedom),
    the constant and the residual standard deviation of log gap."""
    from scipy import stats
    d = df[(df["gap"] > 0) & np.isfinite(df["gap"]) & (df["I"] > 1)]
    cols = {"beta": np.log(d["beta"].to_numpy(float)),
            "I-1": np.log(d["I"].to_numpy(float) - 1.0),
            "heterogeneity": np.log(d["heterogeneity"].to_numpy(float)),
            "eta": np.log(d["eta"].to_numpy(float))}
    names = [n for n, v in cols.items() if np.ptp(v) > 0]
    X = np.column_stack([np.ones(len(d))] + [cols[n] for n in names])
    y = np.log(d["gap"].to_numpy(float))
    n, k = X.shape
    if n <= k:
        raise ValueError(f"fit_law needs more rows ({n}) than parameters ({k})")
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    res = y - X @ coef
    s2 = float(res @ res) / (n - k)
    cov = s2 * np.linalg.inv(X.T @ X)
    tq = stats.t.ppf(0.5 + level / 2, n - k)
    out = {"n": n, "log_constant": float(coef[0]), "residual_sd": math.sqrt(s2),
           "exponents": {}, "intervals": {}}
    for i, nm in enumerate(names, start=1):
        se = math.sqrt(cov[i, i])
        out["exponents"][nm] = float(coef[i])
        out["intervals"][nm] = (float(coef[i] - tq * se), float(coef[i] + tq * se))
    return out


def law_grid(profile: str = "quick") -> list[dict]:
    """The design of the fit: the small-c regime beta (I - 1) <= 0.2, h <= 0.3."""
    if profile == "quick":
        betas, Is, hs, etas = (0.01, 0.04), (2, 5), (0.1, 0.3), (0.01, 0.04)
    else:
        betas, Is, hs, etas = (0.005, 0.01, 0.02, 0.05), (2, 3, 5), (0.05, 0.1, 0.2, 0.3), \
            (0.005, 0.01, 0.02, 0.05)
    return [dict(beta=b, I=i, heterogeneity=h, eta=e) for b in betas for i in Is for h in hs
            for e in etas if b * (i - 1) <= 0.2]


def stochastic_floors(noise: float = 0.02, eta: float = 0.02, heterogeneity: float = 0.3,
                      points=((2, 0.04), (2, 0.16), (5, 0.01), (5, 0.04), (5, 0.16), (9, 0.01),
                              (9, 0.04), (9, 0.16)), seeds=range(4), iterations: int = 40000):
    """Stochastic floors (mean ||grad Phi||^2 over the last half and over seeds) of DS-FedDRO at
    the given (I, beta), the variance floor V (I = 1, where no drift exists) and the closed-form
    deterministic gap; the law says floor = V + gap_0. Returns a DataFrame."""
    import pandas as pd
    p = controlled_problem(heterogeneity, noise=noise)
    V_ = measure(p, 1, 0.04, eta, stochastic=True, seeds=seeds, iterations=iterations)["gap"]
    rows = []
    for I, b in points:
        r = measure(p, I, b, eta, stochastic=True, seeds=seeds, iterations=iterations)
        rows.append(dict(I=I, beta=b, floor=r["gap"], variance_floor=V_,
                         gap0=predicted_limit(p, b, I)[0]))
    return pd.DataFrame(rows)


def phase_data(heterogeneity: float = 0.3, eta: float = 0.02,
               Is=(1, 2, 3, 5, 9, 17), betas=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0),
               stochastic: bool = True) -> dict:
    """The runs :func:`phase_figure` draws: DS-FedDRO's gap over (I, beta) at this eta and h
    (with the closed form), against h at two (I, beta), against eta at one, and (stochastic)
    the floors of :func:`stochastic_floors`."""
    Is, betas = tuple(Is), tuple(betas)
    grid = [dict(I=i, beta=b, eta=eta, heterogeneity=heterogeneity) for i in Is for b in betas]
    hs = (0.03, 0.1, 0.3, 1.0)
    return {"heterogeneity": heterogeneity, "eta": eta, "Is": Is, "betas": betas,
            "grid": sweep(grid),
            "by_h": {(I_, b_): sweep([dict(I=I_, beta=b_, eta=eta, heterogeneity=h) for h in hs])
                     for I_, b_ in ((5, 0.1), (2, 0.01))},
            "by_eta": sweep([dict(I=5, beta=0.1, eta=e, heterogeneity=0.3)
                             for e in (0.005, 0.02, 0.08)]),
            "stochastic": (stochastic_floors(eta=eta, heterogeneity=heterogeneity)
                           if stochastic else None)}


def phase_figure(data: dict):
    """Figure of :func:`phase_data`: (a) log10 gap of DS-FedDRO over (I, beta) with the closed
    form's contours, (b) measured / closed form at this eta, (c) the gap against h (closed form
    dotted) and eta, (d) stochastic floor minus the variance floor against the closed-form gap
    (the law: floor = V + gap_0)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    Is, betas, eta = data["Is"], data["betas"], data["eta"]
    heterogeneity, df = data["heterogeneity"], data["grid"]
    stochastic = data["stochastic"] is not None
    gap = np.full((len(betas), len(Is)), np.nan)
    pred = np.full_like(gap, np.nan)
    for _, r in df.iterrows():
        i, j = betas.index(r["beta"]), Is.index(r["I"])
        gap[i, j] = r["gap"]
        pred[i, j] = r["predicted"]
    npan = 4 if stochastic else 3
    fig, ax = plt.subplots(1, npan, figsize=(5 * npan, 4.4))
    lg = np.log10(np.maximum(gap, 1e-300))
    lp = np.log10(np.maximum(pred, 1e-300))
    im = ax[0].imshow(np.clip(lg, -10, None), origin="lower", aspect="auto", cmap="viridis",
                      vmin=-10)
    cs = ax[0].contour(np.where(pred > 1e-20, lp, np.nan), levels=[-8, -6, -4, -2],
                       colors="w", linewidths=0.8)
    ax[0].clabel(cs, fmt="%d")
    for i in range(len(betas)):
        for j in range(len(Is)):
            if gap[i, j] < 1e-20:
                ax[0].text(j, i, "0", ha="center", va="center", color="w", fontsize=8)
    ax[0].set_xticks(range(len(Is)), [str(i) for i in Is])
    ax[0].set_yticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax[0].set_xlabel("local steps I")
    ax[0].set_ylabel("inner-estimate weight beta")
    ax[0].set_title(f"(a) DS-FedDRO log10 ||grad Phi(x_inf)||^2\n(h={heterogeneity}, eta={eta}; "
                    "white: closed form c^2 |D|^2)", fontsize=9)
    fig.colorbar(im, ax=ax[0])
    ratio = np.where(pred > 1e-20, gap / np.where(pred > 1e-20, pred, 1.0), np.nan)
    im2 = ax[1].imshow(ratio, origin="lower", aspect="auto", cmap="coolwarm", vmin=0.5, vmax=1.5)
    ax[1].set_xticks(range(len(Is)), [str(i) for i in Is])
    ax[1].set_yticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax[1].set_xlabel("local steps I")
    ax[1].set_ylabel("inner-estimate weight beta")
    ax[1].set_title(f"(b) measured / closed form at eta={eta}\n(first-order eta correction; "
                    "-> 1 as eta -> 0)", fontsize=9)
    fig.colorbar(im2, ax=ax[1])
    for (I_, b_), d2 in data["by_h"].items():
        ax[2].loglog(d2["heterogeneity"], d2["gap"], "o-", label=f"I={I_}, beta={b_}")
        ax[2].loglog(d2["heterogeneity"], d2["predicted"], "k:", lw=1)
    d3 = data["by_eta"]
    ax[2].loglog(np.full(len(d3), 0.3), d3["gap"], "s", mfc="none",
                 label="I=5, beta=0.1, eta=0.005, 0.02, 0.08")
    ax[2].set_xlabel("heterogeneity h")
    ax[2].set_ylabel("gap")
    ax[2].set_title("(c) gap ~ h^4 (dotted: closed form);\nnearly eta-independent", fontsize=9)
    ax[2].legend(fontsize=7)
    if stochastic:
        st = data["stochastic"]
        ex = st["floor"] - st["variance_floor"]
        ax[3].loglog(st["gap0"], np.maximum(ex, 1e-12), "o")
        lo, hi = st["gap0"].min() / 2, st["gap0"].max() * 2
        ax[3].loglog([lo, hi], [lo, hi], "k:", lw=1, label="floor - V = gap_0")
        for _, r in st.iterrows():
            ax[3].annotate(f"I={r['I']},b={r['beta']:g}", (r["gap0"], max(r["floor"] -
                           r["variance_floor"], 1e-12)), fontsize=6)
        ax[3].set_xlabel("closed-form deterministic gap_0")
        ax[3].set_ylabel("stochastic floor - variance floor V (I=1)")
        ax[3].set_title(f"(d) noise 0.02: floor = V + gap_0 (V = {st['variance_floor'][0]:.1e})",
                        fontsize=9)
        ax[3].legend(fontsize=7)
    fig.tight_layout()
    return fig


def localscgdam_excess(etas=(0.04, 0.02, 0.01), sync_every=(1, 9), num_clients: int = 4,
                       seed: int = 0, hyper=None):
    """LocalSCGDAM (AUC paper (11)-(14)) on :class:`fedcomp.problems.AUCMinimax`: the
    deterministic gap ||grad Phi||^2 after T = 400 / eta iterations for each p in `sync_every`
    and each eta. Its inner estimate h has weight alpha * eta, so the law predicts that the
    excess gap(p) - gap(1) caused by sharing h every p iterations vanishes as eta -> 0 at fixed
    alpha (c(alpha eta, p) ~ alpha eta (p - 1) / 2). (The p = 1 gap is the client-product bias of
    ``fedcomp.localscgdam-bias``, another effect.) Returns a DataFrame.

    Measured once (K = 4, alpha = beta_x = beta_y = 8, gamma_x = 1, gamma_y = 4): excess of
    p = 9 over p = 1 = 7.95e-6, 3.85e-6, 1.59e-6 at eta = 0.04, 0.02, 0.01 (slope 1.05 then
    1.28 in eta, steepening towards the c^2 regime as alpha eta shrinks).
    """
    import pandas as pd

    from fedcomp.problems import AUCMinimax
    hyper = hyper or {"gamma_x": 1.0, "gamma_y": 4.0, "alpha": 8.0, "beta_x": 8.0,
                      "beta_y": 8.0}
    p = AUCMinimax.synthetic(num_clients=num_clients, seed=seed)
    rows = []
    for eta in etas:
        for q in sync_every:
            T = int(400 / eta)
            T -= T % q
            r = fedcomp.simulate(p, "localscgdam", iterations=T, eta=eta, local_steps=q,
                                 stochastic=False, record_every=q * max(1, T // (20 * q)),
                                 **hyper)
            rows.append({"eta": eta, "p": q, "gap": float(r.grad_norm_sq[-1]),
                         "c": drift_factor(min(1.0, hyper["alpha"] * eta), q),
                         "diverged": r.diverged})
    return pd.DataFrame(rows)


def richardson(problem: LinearQuadratic, I: int, beta: float, eta: float,
               algorithm: str = "ds-feddro") -> dict:
    """The eta -> 0 limit of the deterministic gap by Richardson extrapolation from eta and
    4 eta (the gap is gap_0 (1 + kappa eta + O(eta^2)), measured): gap_0 = (4 g(eta) - g(4 eta)) / 3.
    Returns both runs, the extrapolation and the closed form."""
    a = measure(problem, I, beta, eta, algorithm=algorithm)
    b = measure(problem, I, beta, 4 * eta, algorithm=algorithm)
    g0 = (4.0 * a["gap"] - b["gap"]) / 3.0
    pred, _, c = predicted_limit(problem, a["beta"], I)
    return {"I": I, "beta": a["beta"], "eta": eta, "gap_eta": a["gap"], "gap_4eta": b["gap"],
            "gap0": g0, "predicted": pred, "c": c,
            "converged": a["converged"] and b["converged"],
            "kappa": (a["gap"] / pred - 1.0) / eta if pred > 0 else math.nan}


#: the Huber radius of :func:`remedies`' instance (f Lipschitz: Assumption 3.2); its runs' limits
#: lie inside the ball, where the quadratic closed forms hold (the judges compare them)
REMEDIES_HUBER_RADIUS = 20.0
#: rounds of the ledger runs of :func:`remedies`
LEDGER_ROUNDS = 20


def remedies(etas=(0.04, 0.02, 0.01, 0.005), heterogeneity: float = 1.0, I: int = 5,
             beta: float = 0.1, momentum: float = 0.1) -> dict:
    """The remedies of the FedDRO paper's Section 4.1 ("momentum ... do not eliminate the
    structural bias"; "sharing y_k's in each iteration is required") on one instance, each
    arm with exact oracles at every eta of `etas`: the gap ||grad Phi||^2 at its limit (with
    whether the run settled), beside its closed-form eta -> 0 limit (:func:`limit_at`):

    * ``FedAvg Case II``: y_k = g_k(x_k), x and y averaged every I: c = 1 - 1/I (Theorem 4.1);
    * ``gradient momentum``: Local-SCGDM with inner weight 1 (fresh inner values) and momentum
      `momentum` on the compositional gradient: c = :func:`scgdm_drift_factor` (1, I) = 1, the
      fixed point of FedAvg Case I (every direction with the client's own inner value); it
      averages x, h and u every I;
    * ``inner momentum, fixed beta``: the moving average y_k <- (1 - beta) y_k + beta g_k(x_k)
      (DS-FedDRO's y-update, server step sizes 1: exactly Case II's exchanges) with `beta` fixed:
      c = c(beta, I);
    * ``inner momentum, beta = eta``: the same with the weight tied to the step size (Theorem
      5.2's beta = c_beta eta, c_beta = 1): c(eta, I) -> 0; ``law`` holds its gap at each eta
      and ``limit`` its eta -> 0 limit, that of c = 0;
    * ``Local-SCGDM, beta = eta``: Local-SCGDM as published, inner weight tied to the step size
      (Gao et al. write it beta eta), momentum `momentum`: c'(eta, I) -> 0, its ``law`` likewise;
    * ``Local-SCGDM, fixed beta``: the same with the inner weight fixed at `beta` (as the FCSG
      paper tunes it, over 0.1, 0.5, 0.9): c' = :func:`scgdm_drift_factor` (beta, I) > 0;
    * ``FedDRO``: y averaged every iteration (c = 0), the control.

    The instance is :func:`controlled_problem` at `heterogeneity` with f the Huber function of
    radius :data:`REMEDIES_HUBER_RADIUS` (Assumptions 3.2-3.4 hold); its clients' Jacobians
    differ (``jacobian_spread`` = max_k ||A_k - Abar||_2), which is what makes D nonzero.
    ``ledgers``: the floats each arm uploads (summed over the clients) in :data:`LEDGER_ROUNDS`
    rounds at the smallest eta, from the engine's ledger.
    """
    I = V.positive_int("I", I)
    etas = [V.real_in("etas", e, 0.0) for e in etas]
    if len(etas) < 3:
        raise ValueError(f"etas needs at least 3 step sizes, got {len(etas)}")
    p = controlled_problem(heterogeneity, huber_radius=REMEDIES_HUBER_RADIUS)
    # an arm whose inner weight is tied to eta (beta = eta) has c as a function of (eta, I)
    arms = {"FedAvg Case II": dict(algorithm="fedavg-case2", beta=1.0, c=drift_factor(1.0, I),
                                   setting=f"y_k = g_k(x_k), x and y averaged every I = {I}"),
            "gradient momentum": dict(algorithm="local-scgdm", beta=1.0, momentum=momentum,
                                      c=scgdm_drift_factor(1.0, I),
                                      setting=f"Local-SCGDM with fresh inner values (inner "
                                              f"weight 1) and gradient momentum {momentum:g}; "
                                              f"x, h and u averaged every I = {I}"),
            "inner momentum, fixed beta": dict(algorithm="ds-feddro", beta=beta,
                                               c=drift_factor(beta, I),
                                               setting=f"DS-FedDRO's y-update, beta = {beta:g}, "
                                                       f"server step sizes 1"),
            "inner momentum, beta = eta": dict(algorithm="ds-feddro", c=drift_factor,
                                               setting="DS-FedDRO's y-update, beta = eta, "
                                                       "server step sizes 1"),
            "Local-SCGDM, beta = eta": dict(algorithm="local-scgdm", momentum=momentum,
                                            c=scgdm_drift_factor,
                                            setting=f"Local-SCGDM as published, inner weight "
                                                    f"beta = eta, gradient momentum "
                                                    f"{momentum:g}"),
            "Local-SCGDM, fixed beta": dict(algorithm="local-scgdm", beta=beta,
                                            momentum=momentum,
                                            c=scgdm_drift_factor(beta, I),
                                            setting=f"Local-SCGDM with inner weight fixed at "
                                                    f"beta = {beta:g}, gradient momentum "
                                                    f"{momentum:g}"),
            "FedDRO": dict(algorithm="feddro", beta=beta, c=0.0,
                           setting="y averaged every iteration")}

    def arm_run(a, eta, **kw):
        return measure(p, I, a.get("beta", eta), eta, algorithm=a["algorithm"],
                       momentum=a.get("momentum"), **kw)

    out = {}
    for label, a in arms.items():
        rows = [arm_run(a, eta) for eta in etas]
        fixed = not callable(a["c"])
        out[label] = {"algorithm": a["algorithm"], "setting": a["setting"],
                      "gaps": [r["gap"] for r in rows],
                      "converged": [r["converged"] for r in rows],
                      "iterations": [r["iterations"] for r in rows],
                      # a tied arm's c -> 0 with eta: its eta -> 0 limit is c = 0's
                      "limit": limit_at(p, a["c"] if fixed else 0.0)[0],
                      "law": None if fixed else [limit_at(p, a["c"](eta, I))[0] for eta in etas]}
    e = min(etas)
    ledgers = {label: arm_run(a, e, iterations=LEDGER_ROUNDS * I)["floats"]
               for label, a in arms.items()}
    return {"etas": etas, "I": I, "heterogeneity": heterogeneity, "arms": out,
            "ledgers": ledgers, "ledger_rounds": LEDGER_ROUNDS,
            "jacobian_spread": float(max(np.linalg.norm(Ak - p.Abar, 2) for Ak in p.A)),
            "instance": f"LinearQuadratic K = {p.num_clients}, d = d_g = {p.dim}, "
                        f"heterogeneity {heterogeneity:g} (fedcomp.experiments.intermittent."
                        f"controlled_problem), f Huber of radius {REMEDIES_HUBER_RADIUS:g}, "
                        f"exact oracles, I = {I}"}


#: a priori bound on |extrapolated / closed form - 1|: the O(eta^2) remainder of the
#: extrapolation at the designs below (kappa <= 5, eta <= 0.01: (kappa * 4 eta)^2 / 3 < 0.01)
CLOSED_FORM_TOLERANCE = 0.01


def law_design(profile: str = "quick"):
    """(points, eta): the small-and-large-c design of the check."""
    if profile == "quick":
        pts = [dict(beta=b, I=i, heterogeneity=h) for b in (0.01, 0.04) for i in (2, 5)
               for h in (0.1, 0.3)]
        return pts, 0.01
    pts = [dict(beta=b, I=i, heterogeneity=h) for b in (0.01, 0.04, 0.16, 0.5)
           for i in (2, 3, 5, 9) for h in (0.1, 0.3, 1.0)]
    return pts, 0.0025


#: a priori bound on |asymptotic eta exponent|: the extrapolated local slope s_0 = 2 s(eta, 2 eta)
#: - s(2 eta, 4 eta) of gap(eta) = gap_0 (1 + kappa eta + O(eta^2)) leaves O((kappa eta)^2), below
#: 0.01 for kappa <= 5, eta <= 0.01 (the designs below)
ETA_EXPONENT_TOLERANCE = 0.01


def eta_slopes(problem: LinearQuadratic, I: int, beta: float, eta: float,
               algorithm: str = "ds-feddro") -> dict:
    """Local slopes of log gap against log eta between eta, 2 eta and 4 eta, and their
    Richardson extrapolation to eta -> 0, s_0 = 2 s(eta, 2 eta) - s(2 eta, 4 eta) (the slope is
    kappa eta / (1 + kappa eta) to first order, so linear in eta): the law's eta exponent 0 is
    the limit s_0."""
    g = [measure(problem, I, beta, e, algorithm=algorithm)["gap"] for e in (eta, 2 * eta, 4 * eta)]
    s1 = math.log(g[1] / g[0]) / math.log(2.0)
    s2 = math.log(g[2] / g[1]) / math.log(2.0)
    return {"I": I, "beta": beta, "eta": eta, "slope_eta_2eta": s1, "slope_2eta_4eta": s2,
            "slope_0": 2.0 * s1 - s2}


def closed_form_exponents(points: list[dict], scale: float = 1.0) -> dict:
    """:func:`fit_law` on the closed-form gap c(beta, I)^2 ||D(x_c)||^2 at `points` (beta
    multiplied by `scale`): the exponents the law itself has on a design. With a small scale
    (c -> 0) they are the law's asymptotic exponents; at scale 1 they include the design's
    finite-c bias (c = beta (I - 1)/2 (1 - O(beta I)) and x_c moves with c h^2)."""
    import pandas as pd
    rows = []
    for pt in points:
        p = controlled_problem(pt["heterogeneity"])
        b = pt["beta"] * scale
        rows.append({"beta": b, "I": pt["I"], "heterogeneity": pt["heterogeneity"], "eta": 1.0,
                     "gap": predicted_limit(p, b, pt["I"])[0]})
    return fit_law(pd.DataFrame(rows))


def law_exponents() -> dict:
    """The law's asymptotic exponents of beta, I - 1 and h, by algebra (sympy): the series of
    the closed form c(beta, I) = 1 - (1 - (1 - beta)^I) / (I beta) at beta -> 0 leads with
    beta (I - 1) / 2 (first order in beta and in I - 1); :func:`controlled_problem` scales
    A_k - Abar and b_k - bbar by h, so D(x) = (1/K) sum_k (A_k - Abar)^T (g_k - g) is h^2 D_1(x);
    and x_c -> x* as c -> 0. The gap c^2 ||D(x_c)||^2 therefore has exponents twice c's in beta
    and I - 1 and twice D's in h. Returns {"beta", "I-1", "heterogeneity", "leading term"}."""
    import sympy as sp

    from fedcomp.theory.complexity import _exponents
    b, I_, m, h = sp.symbols("beta I m h", positive=True)
    E, e, x = sp.symbols("E e x", real=True)
    c = 1 - (1 - (1 - b) ** I_) / (I_ * b)
    lead = sp.simplify(sp.series(c, b, 0, 2).removeO())
    e_b, e_m = _exponents(lead.subs(I_, 1 + m), b, m)
    D = (h * E) * ((h * E) * x + h * e)          # one client's (A_k - Abar)^T (g_k - g), scaled
    return {"beta": 2 * float(e_b), "I-1": 2 * float(e_m),
            "heterogeneity": 2 * float(_exponents(D, h)[0]), "leading term": str(lead)}


def law_measurement(profile: str, out_dir) -> dict:
    """The measurement behind ``fedcomp.intermittent-sharing-law`` (judged in
    :mod:`fedcomp.checks.own`).

    Re-measures DS-FedDRO's limit gap on :func:`law_design` at eta and 4 eta and extrapolates to
    eta -> 0 (gap_0), beside the closed form c(beta, I)^2 ||D(x_c)||^2; FedAvg Case II (beta = 1,
    c = 1 - 1/I) against the same closed form; FedDRO (y shared every iteration). Fits the power
    law of gap_0 on beta, I - 1, h over the small-c points (beta (I - 1) <= 0.2), with the closed
    form's exponents on the same points (``closed_form_exponents_design``: what the fit should
    find on this design, finite-c bias included), the law's asymptotic exponents by algebra
    (:func:`law_exponents`), and the asymptotic eta exponent (:func:`eta_slopes`) at every interpolating point; ``points``:
    every (beta, I, h) point's gap_0 and closed form (drawn over (beta, I) by
    :func:`fedcomp.figures.law.law_heatmap`). The full profile adds two non-interpolating points
    and the runs of :func:`phase_figure`.
    """
    import pandas as pd
    out_dir = Path(out_dir)
    pts, eta = law_design(profile)
    rows, slopes = [], []
    for pt in pts:
        p = controlled_problem(pt["heterogeneity"])
        r = richardson(p, pt["I"], pt["beta"], eta)
        r["heterogeneity"] = pt["heterogeneity"]
        rows.append(r)
        sl = eta_slopes(p, pt["I"], pt["beta"], eta)
        sl["heterogeneity"] = pt["heterogeneity"]
        slopes.append(sl)
    if profile == "full":
        # non-interpolating instances (d < d_g, grad f(g*) != 0): a client-drift term of order
        # eta adds to the gap, so the extrapolation needs a smaller eta
        q = controlled_problem(0.3, dim=3, inner_dim=5)
        for I_, b_ in ((5, 0.04), (9, 0.01)):
            r = richardson(q, I_, b_, eta / 4)
            r["heterogeneity"] = 0.3
            r["non_interpolating"] = True
            rows.append(r)
    df = pd.DataFrame(rows)
    err = (df["gap0"] / df["predicted"] - 1.0).abs()
    p = controlled_problem(0.3)
    fa = richardson(p, 5, 1.0, eta, algorithm="fedavg-case2")
    fd = measure(p, 5, 0.5, 0.05, algorithm="feddro")
    interp = df[df.get("non_interpolating", pd.Series(False, index=df.index)) != True]  # noqa: E712
    small = interp[interp["beta"] * (interp["I"] - 1) <= 0.2]
    fit = fit_law(small.rename(columns={"gap0": "gap"}).assign(eta=1.0))
    small_pts = [{"beta": float(r.beta), "I": int(r.I), "heterogeneity": float(r.heterogeneity)}
                 for r in small.itertuples()]
    cf_design = closed_form_exponents(small_pts)
    figures = []
    if profile == "full":
        from fedcomp.figures import plot
        figures.append(plot("figures/fedcomp.intermittent-sharing-law-phase-diagram.png",
                            phase_figure, phase_data()))
    return {"eta": eta, "n_points": int(len(df)),
            "max_rel_error_closed_form": float(err.max()),
            "all_converged": bool(df["converged"].all()),
            "fedavg_case2_rel_error": float(abs(fa["gap0"] / fa["predicted"] - 1.0)),
            "feddro_gap": float(fd["gap"]),
            "kappa_range": [float(df["kappa"].min()), float(df["kappa"].max())],
            "fit": {"exponents": fit["exponents"], "intervals": fit["intervals"],
                    "n": fit["n"]},
            "closed_form_exponents_design": cf_design["exponents"],
            "law_exponents": law_exponents(),
            "eta_slopes": slopes, "figures": figures,
            "points": [{"beta": float(r["beta"]), "I": int(r["I"]),
                        "heterogeneity": float(r["heterogeneity"]), "gap0": float(r["gap0"]),
                        "predicted": float(r["predicted"]),
                        "non_interpolating": bool(r.get("non_interpolating", False))}
                       for r in rows]}
