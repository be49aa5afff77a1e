"""``fedcomp theory constants PROBLEM [--lower L --upper U] [--json]``: the constants of
Assumption 3.2, Lemma 3.5's L_Phi, the observed smoothness and the tightness ratio for a
built-in problem (:data:`PROBLEMS`), and with ``--schedule ALG --T T --K K`` the step sizes the
theorem prescribes (:mod:`fedcomp.theory.schedules`)."""
from __future__ import annotations

import json


def _linear():
    from fedcomp.problems import LinearQuadratic
    return LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1)


def _thm41(name):
    def build():
        from fedcomp.counterexamples import thm41
        return thm41.instance(name)
    return build


def _kl():
    from fedcomp.problems import KLDRO
    return KLDRO.synthetic(lam=1.0, num_clients=4, samples_per_client=30, dim=2, seed=3)


def _chi2(form):
    def build():
        from fedcomp.problems import Chi2DRO
        return Chi2DRO.synthetic(lam=1.0, num_clients=4, samples_per_client=30, dim=2, seed=3,
                                 form=form)
    return build


def _symbolic_example():
    import sympy as sp

    from fedcomp.problems import SymbolicProblem
    a, b, u, v = sp.symbols("a b u v")
    g = [[sp.sin(a) + b, a * b], [a ** 2 / 3, sp.exp(b / 2)]]
    return SymbolicProblem([a, b], [u, v], g, u ** 2 / 2 + v ** 4 / 4 + u * v / 3,
                           h=[a ** 2 / 4, sp.cos(b)])


def _auc():
    from fedcomp.problems.auc import AUCMinimax
    return AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=60, seed=0)


# name -> (builder, description, default box)
PROBLEMS = {
    "linear-quadratic": (_linear, "LinearQuadratic.random(K=4, d=3, d_g=2, heterogeneity=0.5, "
                                  "seed=1)", (-1.0, 1.0)),
    "thm4.1": (_thm41("scalar"), "Theorem 4.1 instance 'scalar' (fedcomp.counterexamples.thm41, "
                                 "Huber radius 20)", (-5.0, 5.0)),
    "thm4.1-overdetermined": (_thm41("overdetermined"), "Theorem 4.1 instance 'overdetermined'",
                              (-5.0, 5.0)),
    "kl-dro": (_kl, "KLDRO.synthetic(lam=1, K=4, 30 rows each, d=2, seed=3)", (-1.0, 1.0)),
    "chi2-dro": (_chi2("printed"), "Chi2DRO.synthetic(lam=1, K=4, 30 rows, d=2, seed=3), FedDRO "
                                   "(5) as printed", (-1.0, 1.0)),
    "chi2-dro-corrected": (_chi2("corrected"), "Chi2DRO, corrected form", (-1.0, 1.0)),
    "auc-minimax": (_auc, "AUCMinimax.synthetic(K=3, dim=3, 60 rows each, seed=0): AUC paper "
                          "Lemma 2 (min-max constant), not Assumption 3.2", (-1.0, 1.0)),
    "symbolic-example": (_symbolic_example, "SymbolicProblem: g_1 = (sin a + b, ab), g_2 = "
                                            "(a^2/3, exp(b/2)), f = u^2/2 + v^4/4 + uv/3, "
                                            "h = (a^2/4, cos b)", (-1.0, 1.0)),
}


def _run(args) -> int:
    from fedcomp.theory.constants import constants
    if args.problem not in PROBLEMS:
        raise ValueError(f"unknown problem {args.problem!r}; built-in problems: "
                         f"{', '.join(sorted(PROBLEMS))}")
    # checked before the problem is built: --K 0 used to fall back silently to the problem's K
    if args.K is not None and args.K < 1:
        raise ValueError(f"--K must be an integer >= 1, got {args.K}")
    if args.T < 1:
        raise ValueError(f"--T must be an integer >= 1, got {args.T}")
    build, desc, (lo, hi) = PROBLEMS[args.problem]
    lower = lo if args.lower is None else args.lower
    upper = hi if args.upper is None else args.upper
    p = build()
    if p.structure == "minimax":
        return _run_minimax(args, p, desc, lower, upper)
    c = constants(p, lower, upper, seed=args.seed, verify=args.verify)
    sched = None
    if args.schedule:
        from fedcomp.theory.schedules import prescribe
        sched = prescribe(args.schedule, c, T=args.T,
                          K=p.num_clients if args.K is None else args.K)
    if args.json:
        out = c.as_dict()
        out.update(problem=args.problem, description=desc, instance=c.problem)
        if sched is not None:
            out["schedule"] = sched.as_dict()
        print(json.dumps(out, indent=2, default=float))
        return 0
    print(f"{args.problem}: {desc}")
    print(c.table())
    if sched is not None:
        print()
        print(sched)
    return 0


def _run_minimax(args, p, desc, lower, upper) -> int:
    from fedcomp.theory.constants import auc_lemma2_report
    rep = auc_lemma2_report(p, lower, upper, seed=args.seed)
    if args.json:
        print(json.dumps({"problem": args.problem, "description": desc, **rep}, indent=2,
                         default=float))
        return 0
    c = rep["constants"]
    print(f"{args.problem}: {desc}")
    print(f"box: [{lower}, {upper}]^{p.dim}")
    for n in ("C_g", "C_f", "L_f", "L_g", "mu", "radius_u", "radius_alpha"):
        print(f"{n:16s} {c[n]:13.6g}")
    print("-" * 60)
    print(f"{'L_phi_lemma2':16s} {rep['L_phi_lemma2']:13.6g}   AUC paper Lemma 2: "
          f"2 C_g^2 L_f^2/mu + C_f L_g")
    print(f"{'L_phi_direct':16s} {rep['L_phi_direct']:13.6g}   C_f L_g + C_g^2 L_f (1 + L_f/mu)")
    print(f"{'L_phi_observed':16s} {rep['L_phi_observed']:13.6g}   largest ||Hess Phi||_2 "
          f"found on the box")
    print(f"{'tightness':16s} {rep['tightness']:13.6g}   L_phi_lemma2 / L_phi_observed")
    return 0


def add_theory_cli(tsub) -> None:
    p = tsub.add_parser("constants", help="constants of Assumption 3.2 and Lemma 3.5 for a "
                                          "built-in problem")
    p.add_argument("problem", metavar="PROBLEM",
                   help="one of: " + ", ".join(sorted(PROBLEMS)))
    p.add_argument("--lower", type=float, default=None, help="lower end of the box (all coords)")
    p.add_argument("--upper", type=float, default=None, help="upper end of the box (all coords)")
    p.add_argument("--seed", type=int, default=0, help="seed of the Hessian search")
    p.add_argument("--verify", default=None, choices=("mpmath",),
                   help="symbolic problems: re-verify every interval bound with mpmath (slow)")
    p.add_argument("--schedule", default=None,
                   choices=("feddro", "ds-feddro", "fedavg-modified"),
                   help="also print the step sizes this algorithm's theorem prescribes")
    p.add_argument("--T", type=int, default=10_000, help="horizon for --schedule")
    p.add_argument("--K", type=int, default=None, help="clients for --schedule (default: the "
                                                        "problem's)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
