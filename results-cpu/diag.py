"""Diagnostic runs of localscgdam-fashionmnist arms with one setting changed at a time.

usage: diag.py ARM T EVAL_EVERY [key=value ...]
keys: eta, rho, score (sigmoid|linear), a0, b0, dual_floor (AUC-M projection y >= value), gamma_x, gamma_y,
beta_x, beta_y, alpha, momentum, debug (print logit statistics)
"""
import sys
import time

import torch

torch.set_num_threads(1)

from fedcomp.neural import experiments as E  # noqa: E402
from fedcomp.neural import algorithms as A  # noqa: E402

arm_label, T, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
opts = dict(a.split("=", 1) for a in sys.argv[4:])
torch.manual_seed(0)
t0 = time.perf_counter()
arms = E.get("localscgdam-fashionmnist").build(False, "cpu", 0, None, T)
arm = [a for a in arms if a.label == arm_label][0]
P = arm.problem
if "rho" in opts:
    P.rho = float(opts.pop("rho"))
if "score" in opts:
    P.score = opts.pop("score")
x0 = arm.x0.clone()
if "a0" in opts:
    x0[P.idx_a] = float(opts.pop("a0"))
if "b0" in opts:
    x0[P.idx_b] = float(opts.pop("b0"))
eta = float(opts.pop("eta", arm.eta))
floor = opts.pop("dual_floor", None)
if floor is not None:  # the code's AUC-M projection (AUCMinimax.dual_floor)
    floor = float(floor)
    P.dual_floor = floor
debug = opts.pop("debug", None)
# wrap the client step: record the dual's range and how often the projection binds
alg = A.get(arm.algorithm)
orig = alg.client
track = {"min": float("inf"), "max": -float("inf"), "clamps": 0}


def client(P_, st, k, t, c, phase):
    orig(P_, st, k, t, c, phase)
    yk = float(st.Y[k, 0])
    track["min"], track["max"] = min(track["min"], yk), max(track["max"], yk)
    if floor is not None and yk == floor:  # the projection was active in this step
        track["clamps"] += 1


A._REGISTRY[arm.algorithm] = A.NeuralAlgorithm(**{**alg.__dict__, "client": client})
hyper = dict(arm.hyper)
hyper.update({k: float(v) for k, v in opts.items()})
print(f"build {time.perf_counter() - t0:.1f}s; {arm_label} T={T} eta={eta} rho={P.rho} "
      f"score={P.score} floor={floor} hyper={hyper}", flush=True)
tick = [time.perf_counter()]


def evaluate(x, buf):
    r = arm.evaluate(x, buf)
    if debug:
        import numpy as np
        lg = E._scores(P.model, x, P.data.inputs[0][:2000])[:, 0]
        print(f"  logits at x on client 0: mean {lg.mean():.3g} std {lg.std():.3g} "
              f"max|.| {np.abs(lg).max():.3g}; |x| {float(x.norm()):.4g}", flush=True)
    now = time.perf_counter()
    print(f"  eval auc={r['test_auc']:.4f} a={float(x[P.idx_a]):.3f} b={float(x[P.idx_b]):.3f} "
          f"dual range since last [{track['min']:.3f}, {track['max']:.3f}] "
          f"clamps {track['clamps']} since_last={now - tick[0]:.1f}s", flush=True)
    track.update(min=float("inf"), max=-float("inf"), clamps=0)
    tick[0] = now
    return r


res = A.run(P, arm.algorithm, T, eta, arm.local_steps, x0=x0, seed=0, evaluate=evaluate,
            eval_every=every, **hyper)
for r in res.history:
    print(f"t={r['t']} auc={r['test_auc']:.4f} s={r['seconds']:.1f}")
print(f"dual y_bar={float(res.state.Y.mean()):.4f} total {res.seconds:.1f}s diverged="
      f"{res.diverged_at}")
