"""Figures of the Theorem 4.1 reproduction (read the rows of
:func:`fedcomp.counterexamples.thm41.reproduce`)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

_STYLE = {"fedavg-case1": ("C3", "o"), "fedavg-case2": ("C1", "s"),
          "fedavg-modified": ("C0", "^"), "feddro": ("C2", "D")}


def plot_trajectories(out: Path, eta: float = 0.05, I: int = 5, T: int = 3000) -> Path:
    """||grad Phi(xbar_t)||^2 against t for all algorithms on the scalar instance."""
    import fedcomp
    from fedcomp.counterexamples.thm41 import _hyper, instance
    p = instance("overdetermined")
    fig, ax = plt.subplots(figsize=(6, 4))
    for alg, (c, _) in _STYLE.items():
        r = fedcomp.simulate(p, alg, iterations=T, eta=eta, local_steps=I, stochastic=False,
                             **_hyper(alg))
        ax.semilogy(r.t, np.maximum(r.grad_norm_sq, 1e-32), color=c, label=alg)
    ax.set_xlabel("iteration t")
    ax.set_ylabel(r"$\|\nabla\Phi(\bar x_t)\|^2$")
    ax.set_title(f"Theorem 4.1, overdetermined instance (eta={eta}, I={I})")
    ax.legend()
    fig.tight_layout()
    path = out / "thm41_trajectories.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_gap_vs_eta(rows, out: Path, instance: str = "overdetermined") -> Path:
    """Limiting ||grad Phi|| against eta for several I: simulated markers, closed-form lines."""
    Is = sorted({r["local_steps"] for r in rows if r["instance"] == instance})
    fig, axes = plt.subplots(1, len(Is), figsize=(3.2 * len(Is), 3.4), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, I in zip(axes, Is):
        for alg, (c, m) in _STYLE.items():
            rs = sorted((r for r in rows if r["instance"] == instance and r["algorithm"] == alg
                         and r["local_steps"] == I and r["grad_norm_limit"] is not None),
                        key=lambda r: r["eta"])
            if not rs:
                continue
            e = [r["eta"] for r in rs]
            ax.loglog(e, [max(r["predicted_limit"], 1e-16) for r in rs], color=c, lw=1)
            ax.loglog(e, [max(r["grad_norm_limit"], 1e-16) for r in rs], m, color=c,
                      mfc="none", label=alg)
        ax.set_title(f"I = {I}")
        ax.set_xlabel("eta")
    axes[0].set_ylabel(r"limit of $\|\nabla\Phi(\bar x)\|$")
    axes[-1].legend(fontsize=7)
    fig.suptitle(f"Limiting gap against eta ({instance}; lines: closed form, markers: simulated)")
    fig.tight_layout()
    path = out / f"thm41_gap_vs_eta_{instance}.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_thm41(rows, out: Path) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return [plot_trajectories(out), plot_gap_vs_eta(rows, out, "overdetermined"),
            plot_gap_vs_eta(rows, out, "scalar")]
