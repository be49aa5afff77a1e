"""The ``fedcomp`` command. Each area adds its sub-commands through an ``add_cli(subparsers)``
function in its own module (listed in ``_AREAS``), so areas never edit each other's code."""
from __future__ import annotations

import argparse
import importlib
import sys

# module providing add_cli(subparsers); each registers parsers with set_defaults(func=...)
_AREAS = (
    "fedcomp.counterexamples.cli",
    "fedcomp.theory.cli",
    "fedcomp.rates.cli",
    "fedcomp.neural.cli",
    "fedcomp.report",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fedcomp",
        description="Machine verification of federated compositional optimization theory.")
    from fedcomp import __version__
    parser.add_argument("--version", action="version", version=f"fedcomp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _AREAS:
        importlib.import_module(name).add_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:
        print(f"fedcomp: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
