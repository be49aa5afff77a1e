"""Counter-based random streams for the compiled engine.

Every random quantity is a pure function of a 64-bit *key* and a counter, so a draw does not
depend on the order in which clients, runs or executors are scheduled (results are bit-identical
in any executor), and a *sample* can be re-evaluated at several points by reusing its key (the
"same sample at two points" that hybrid estimators such as FedDRO (8) need).

Keys: ``sample_key(base, k, t, j)`` is the key of the j-th sample of client k at iteration t of a
run whose base key derives from the user's seed through :class:`numpy.random.SeedSequence`.
Two algorithms run with the same seed therefore see the same samples (common random numbers).

The mixer is SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), applied as a counter-based hash. Normals use the ziggurat method
on the hashed 64-bit words; uniform indices use the top 53 bits scaled to the range.

Keys are uint64. Every function casts its key to uint64 first: a key that reaches it typed as a
signed integer (a Python int below 2**63 passed from Python) would otherwise be mixed with signed
arithmetic (arithmetic shifts, signed/unsigned promotion) and give a different, non-uniform stream.
For uint64 keys the cast is free and changes nothing.
"""
from __future__ import annotations

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_M53 = 1.0 / 9007199254740992.0


@nb.njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@nb.njit(cache=True, inline="always")
def sample_key(base, k, t, j):
    """Key of sample j of client k at iteration t (base: the run's uint64 base key)."""
    z = mix64(np.uint64(base) ^ (np.uint64(k) * _GOLDEN + np.uint64(0x632BE59BD9B4E019)))
    z = mix64(z ^ (np.uint64(t) * _GOLDEN + np.uint64(0x85157AF5)))
    return mix64(z ^ (np.uint64(j) * _GOLDEN + np.uint64(0x2545F4914F6CDD1D)))


@nb.njit(cache=True, inline="always")
def substream(key, s):
    """An independent key derived from `key` (for independent parts of one sample)."""
    return mix64(np.uint64(key) ^ (np.uint64(s + 1) * _M2))


@nb.njit(cache=True, inline="always")
def uniform01(key, i):
    """Uniform on (0, 1] from counter i of `key`."""
    bits = mix64(np.uint64(key) + np.uint64(i + 1) * _GOLDEN)
    return (np.float64(bits >> _S11) + 1.0) * _TWO_M53


@nb.njit(cache=True, inline="always")
def randint(key, i, n):
    """Uniform integer in [0, n) from counter i of `key` (bias below 2**-53 * n)."""
    u = np.float64(mix64(np.uint64(key) + np.uint64(i + 1) * _GOLDEN) >> _S11) * _TWO_M53
    r = np.int64(u * n)
    return r if r < n else n - 1


# Ziggurat tables (Marsaglia and Tsang, "The ziggurat method for generating random variables",
# J. Stat. Softw. 5(8), 2000), 128 layers. Layer 0 is the base strip (rectangle plus tail).
_ZR = 3.442619855899
_ZV = 9.91256303526217e-3


def _zig_tables():
    n = 128
    x = np.empty(n + 1)
    fx = np.empty(n + 1)
    f = lambda v: np.exp(-0.5 * v * v)  # noqa: E731
    x[0] = _ZV / f(_ZR)
    x[1] = _ZR
    for i in range(1, n - 1):
        x[i + 1] = np.sqrt(-2.0 * np.log(_ZV / x[i] + f(x[i])))
    x[n] = 0.0
    x[n - 1] = max(x[n - 1], 0.0)
    for i in range(n + 1):
        fx[i] = f(x[i])
    return x, fx


_ZX, _ZF = _zig_tables()


@nb.njit(cache=True)
def _zig_slow(key, c, i, u):
    """Rare path of the ziggurat: returns (value, counter)."""
    if i == 0:
        while True:
            a = -np.log(uniform01(key, c)) / _ZR
            b = -np.log(uniform01(key, c + 1))
            c += 2
            if b + b > a * a:
                return _ZR + a, c
    xx = u * _ZX[i]
    if _ZF[i + 1] + uniform01(key, c) * (_ZF[i] - _ZF[i + 1]) < np.exp(-0.5 * xx * xx):
        return xx, c + 1
    return -1.0, c + 1


@nb.njit(cache=True, inline="always")
def _zig_one(key, c):
    """One standard normal drawn from counter c of `key`; returns (value, next counter)."""
    ukey = np.uint64(key)
    while True:
        bits = mix64(ukey + np.uint64(c + 1) * _GOLDEN)
        c += 1
        i = np.int64(bits & np.uint64(127))
        neg = (bits >> np.uint64(7)) & np.uint64(1)
        u = np.float64(bits >> _S11) * _TWO_M53
        xx = u * _ZX[i]
        if xx >= _ZX[i + 1]:
            xx, c = _zig_slow(ukey, c, i, u)
            if xx < 0.0:
                continue
        # the sign as a multiplication by +-1 (exact: the same bits as -xx), not a branch: the
        # sign bit is random, so a branch is mispredicted half the time (bench/rng_bench.py:
        # about 11 -> 5 ns per normal)
        return xx * (1.0 - 2.0 * np.float64(neg)), c


@nb.njit(cache=True)
def add_normal(key, scale, out):
    """out[i] += scale * N_i(0, 1) for i < len(out), the normals taken from `key`."""
    c = 0
    for i in range(out.shape[0]):
        z, c = _zig_one(key, c)
        out[i] += scale * z


@nb.njit(cache=True)
def add_normal2(key, scale, out1, out2):
    """out1[i] += scale * N_i and out2[i] += scale * N_i with the same normals N_i of `key`
    (bit for bit what two ``add_normal`` calls with one key give, at the cost of one draw)."""
    c = 0
    for i in range(out1.shape[0]):
        z, c = _zig_one(key, c)
        out1[i] += scale * z
        out2[i] += scale * z


@nb.njit(cache=True)
def normal(key, i):
    """The i-th standard normal of `key` (independent of the others for distinct i)."""
    z, _ = _zig_one(substream(key, i), 0)
    return z


def base_key(seed: int) -> np.uint64:
    """The run's base key from a user seed, through numpy's SeedSequence."""
    return np.random.SeedSequence(int(seed)).generate_state(1, dtype=np.uint64)[0]
