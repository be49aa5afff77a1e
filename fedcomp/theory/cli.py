"""``fedcomp claims`` and the ``fedcomp theory ...`` group.

The theory group's sub-commands come from modules listed in ``_THEORY_AREAS``, each with an
``add_theory_cli(subparsers)`` function, so that the constants, DRO and complexity areas never
edit each other's code.
"""
from __future__ import annotations

import importlib
import json

_THEORY_AREAS = (
    "fedcomp.theory.constants_cli",   # fedcomp theory constants PROBLEM
    "fedcomp.theory.dro_cli",         # fedcomp theory dro ...
    "fedcomp.theory.complexity_cli",  # fedcomp theory complexity
)


def _claims(args) -> int:
    from fedcomp.checks import all_claims
    claims = all_claims()
    if args.json:
        print(json.dumps({"claims": [c.to_dict() for c in claims]}, indent=2, default=str))
        return 0
    for c in claims:
        print(f"{c.id:32s} {c.kind:15s} {c.status:12s} {c.location}")
        print(f"    {c.statement}")
        if c.reading != "as printed":
            print(f"    reading: {c.reading}")
        if c.depends_on:
            print(f"    depends on: {', '.join(c.depends_on)}")
        print(f"    check: {c.command}")
    print(f"\n{len(claims)} claims, {sum(c.check is not None for c in claims)} with a check")
    return 0


def add_cli(sub) -> None:
    p = sub.add_parser("claims", help="list every registered claim of the papers")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_claims)

    t = sub.add_parser("theory", help="constants, DRO reformulations, complexity table")
    tsub = t.add_subparsers(dest="theory_command", metavar="TOPIC")
    for name in _THEORY_AREAS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise
        mod.add_theory_cli(tsub)
    t.set_defaults(func=lambda args: (t.print_help(), 2)[1])
