"""``fedcomp claims``: list the claims registry."""
from __future__ import annotations

import json


def _claims(args) -> int:
    from fedcomp.theory.claims import all_claims
    claims = all_claims()
    if args.json:
        print(json.dumps({"claims": [c.to_dict() for c in claims]}, indent=2, default=str))
        return 0
    for c in claims:
        print(f"{c.id:32s} {c.kind:15s} {c.status:12s} {c.location}")
        print(f"    {c.statement}")
        print(f"    check: {c.command}")
    print(f"\n{len(claims)} claims, {sum(c.check is not None for c in claims)} with a check")
    return 0


def add_cli(sub) -> None:
    p = sub.add_parser("claims", help="list every registered claim of the papers")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_claims)
