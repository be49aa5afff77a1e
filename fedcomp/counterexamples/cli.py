"""``fedcomp counterexample thm4.1 [--json] [--out DIR] [--profile quick|full]``."""
from __future__ import annotations

import json


def _run(args) -> int:
    from fedcomp.counterexamples import thm41
    if args.name not in ("thm4.1",):
        raise ValueError(f"unknown counterexample {args.name!r}; available: thm4.1")
    from fedcomp._validate import output_dir
    output_dir("--out", args.out)  # before the work, not after it
    rep = thm41.reproduce(args.profile, args.out)
    if args.json:
        print(json.dumps(rep.to_json(), default=str))
    else:
        print(thm41.format_table(rep))
    return 0


def add_cli(sub) -> None:
    p = sub.add_parser("counterexample", help="reproduce a counterexample (thm4.1)")
    p.add_argument("name", help="thm4.1: Theorem 4.1 of the FedDRO paper")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", default="figures", help="directory for figures (default ./figures)")
    p.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"),
                   help="quick (default): about a minute; full: paper-scale grids; smoke: seconds")
    p.set_defaults(func=_run)
