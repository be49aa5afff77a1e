"""``fedcomp theory complexity [--json]``: the complexity table of the five papers in one
convention (E||grad Phi||^2 <= eps), derived by sympy (:mod:`fedcomp.theory.complexity`)."""
from __future__ import annotations

import json


def _run(args) -> int:
    from fedcomp.theory import complexity
    if args.json:
        print(json.dumps(complexity.complexity_json(), indent=2, default=str))
    else:
        print(complexity.format_table())
    return 0


def add_theory_cli(tsub) -> None:
    p = tsub.add_parser("complexity", help="sample/communication complexities of every algorithm "
                                           "of the five papers, derived in one convention")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
