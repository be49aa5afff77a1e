"""Normals per nanosecond of fedcomp.rng.add_normal, against the same ziggurat with its sign
taken by a branch (``-xx if neg else xx``, fedcomp's form before 27 November 2026), in one run.

The sign bit of each 64-bit word is random, so a branch on it is mispredicted about half the
time; fedcomp multiplies by +-1 instead (exact: the same bits). The bench first checks that
both forms give the same normals bit for bit on 20000 keys x 64 draws, then prints
ns per call of ``add_normal(key, 1.0, out)`` for len(out) = m, median of --reps repetitions,
one key per call as in a client step.

    NUMBA_NUM_THREADS=1 taskset -c 0 env PYTHONPATH=. python bench/rng_bench.py
"""
from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from fedcomp.rng import (_GOLDEN, _S11, _TWO_M53, _ZX, _zig_slow, add_normal, mix64,
                         sample_key, substream)


@nb.njit(inline="always")
def _zig_branch(key, c):
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
        return (-xx if neg else xx), c


@nb.njit
def add_normal_branch(key, scale, out):
    c = 0
    for i in range(out.shape[0]):
        z, c = _zig_branch(key, c)
        out[i] += scale * z


def _loop(fn):
    @nb.njit
    def loop(n, m):
        out = np.zeros(m)
        for t in range(n):
            fn(substream(sample_key(np.uint64(12345), 3, t, 0), 0), 1.0, out)
        return out
    return loop


@nb.njit
def _draws(fn, keys, m):
    out = np.zeros((keys.shape[0], m))
    for r in range(keys.shape[0]):
        fn(keys[r], 1.0, out[r])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--calls", type=int, default=1_000_000)
    a = ap.parse_args(argv)
    keys = np.random.SeedSequence(0).generate_state(20000, dtype=np.uint64)
    new, old = _draws(add_normal, keys, 64), _draws(add_normal_branch, keys, 64)
    assert np.array_equal(new.view(np.uint64), old.view(np.uint64)), "the two forms differ"
    print(f"same bits: {new.size} normals of {len(keys)} keys")
    loops = {"branch": _loop(add_normal_branch), "fedcomp": _loop(add_normal)}
    print("| m | branch (ns per call) | fedcomp (ns per call) | branch / fedcomp |")
    print("|---|---|---|---|")
    for m in (5, 10, 50):
        times = {k: [] for k in loops}
        for loop in loops.values():
            loop(10, m)
        for _ in range(a.reps):  # interleaved
            for k, loop in loops.items():
                t0 = time.perf_counter()
                loop(a.calls, m)
                times[k].append((time.perf_counter() - t0) / a.calls * 1e9)
        b, f = (float(np.median(times[k])) for k in ("branch", "fedcomp"))
        print(f"| {m} | {b:.1f} | {f:.1f} | {b / f:.2f} |")


if __name__ == "__main__":
    main()
