"""``fedcomp theory dro [--json] [--losses L1,L2,...] [--lam LAMBDA]``: the DRO reformulations of
the papers, derived symbolically and checked numerically (:mod:`fedcomp.theory.dro`)."""
from __future__ import annotations

import json


def _parse_losses(text: str):
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--losses must be a comma-separated list of numbers, got {text!r}") from None


def _run(args) -> int:
    from fedcomp.theory import dro
    losses = None if args.losses is None else _parse_losses(args.losses)
    if args.lam is not None and losses is None:
        raise ValueError("--lam needs --losses (without --losses built-in examples are used)")
    rep = dro.dro_report(losses, args.lam)
    if args.json:
        print(json.dumps(dro.report_json(rep), indent=2, default=str))
    else:
        print(dro.format_report(rep))
    return 0


def add_theory_cli(tsub) -> None:
    p = tsub.add_parser("dro", help="DRO reformulations (KL, chi-square, AUC): derivations and "
                                    "numerical checks against the printed formulas")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--losses", default=None,
                   help="comma-separated losses to check (default: built-in examples)")
    p.add_argument("--lam", type=float, default=None, help="regularisation lambda > 0 (default 1)")
    p.set_defaults(func=_run)
