"""The shared sample's bias of FedDRO's (7) (fedcomp.rates.feddro.shared_sample_bias, behind
khanduri.assump3.3.independent-sample), against the same expectation written here from KL-DRO's
formulas with numpy (per-sample losses, weights and gradients), and zero where a client's samples
are all alike."""
import numpy as np
import pytest

from fedcomp.problems import Chi2DRO, KLDRO
from fedcomp.rates.feddro import shared_sample_bias


def _by_hand(F, Lab, sizes, lam, c, x, eta, beta):
    """The docstring's iteration, every expectation a mean over a client's rows."""
    K = len(sizes)
    off = np.concatenate([[0], np.cumsum(sizes)])

    def g(rows, z):   # per-sample g_i(z) = exp((softplus(-l a.z) - c) / lam)
        m = -Lab[rows] * (F[rows] @ z)
        return np.exp((np.logaddexp(0.0, m) - c) / lam)

    def jac(rows, z):  # per-sample grad g_i(z), one row each
        m = -Lab[rows] * (F[rows] @ z)
        slope = -Lab[rows] / (1.0 + np.exp(-m))        # d loss / d(a.z)
        return (g(rows, z) / lam * slope)[:, None] * F[rows]

    def fp(u):
        return lam / u

    gk = np.array([g(range(off[k], off[k + 1]), x).mean() for k in range(K)])
    gbar = gk.mean()
    rel, mean_bias = [], np.zeros(F.shape[1])
    for k in range(K):
        rows = np.arange(off[k], off[k + 1])
        steps = jac(rows, x) * fp(gbar)
        acc = np.zeros(F.shape[1])
        for dk in steps:
            xp = x - eta * dk
            gz, gzx = g(rows, xp), g(rows, x)
            grads = fp(gbar + ((gz - gz.mean()) - (1 - beta) * (gzx - gk[k])) / K)
            J = jac(rows, xp)
            acc += (J * grads[:, None]).mean(axis=0) - J.mean(axis=0) * grads.mean()
        acc /= len(rows)
        rel.append(np.linalg.norm(acc) / np.sqrt(np.mean(np.sum(steps ** 2, axis=1))))
        mean_bias += acc / K
    return max(rel), float(mean_bias @ mean_bias)


def test_matches_kl_dros_formulas_written_out():
    rng = np.random.default_rng(3)
    sizes = [3, 4]
    F = [rng.normal(size=(m, 2)) for m in sizes]
    Lab = [np.where(rng.random(m) < 0.5, 1.0, -1.0) for m in sizes]
    lam, c = 0.7, 0.3
    p = KLDRO(F, Lab, lam=lam, batch_size=2, shift=c)
    x = np.array([0.4, -0.9])
    steps = [(0.05, 0.05), (0.2, 0.1)]
    got = shared_sample_bias(p, x, steps)
    for i, (eta, beta) in enumerate(steps):
        rel, msq = _by_hand(np.vstack(F), np.concatenate(Lab), sizes, lam, c, x, eta, beta)
        assert got["relative_bias"][i] == pytest.approx(rel, rel=1e-9)
        assert got["mean_bias_sq"][i] == pytest.approx(msq, rel=1e-9)
        assert rel > 1e-4   # a real bias: the comparison is not of two zeros


def test_no_bias_when_a_clients_samples_are_alike():
    a = np.array([[0.5, -1.0]])
    F = [np.repeat(a, 3, axis=0), np.repeat(-a, 2, axis=0)]
    p = KLDRO(F, [np.ones(3), -np.ones(2)], lam=1.0, batch_size=1)
    got = shared_sample_bias(p, np.array([0.3, 0.2]), [(0.1, 0.1), (0.05, 0.05)])
    assert max(got["relative_bias"]) < 1e-14
    assert max(got["mean_bias_sq"]) < 1e-28


def test_names_the_problem_it_needs():
    p = Chi2DRO([np.ones((2, 2))], [np.array([1.0, -1.0])], lam=1.0, batch_size=1)
    with pytest.raises(ValueError, match="problem must be a KLDRO"):
        shared_sample_bias(p, np.zeros(2), [(0.1, 0.1)])
