"""The ``fedcomp`` command. Each area adds its sub-commands through an ``add_cli(subparsers)``
function in its own module (listed in ``_AREAS``), so areas never edit each other's code."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# module providing add_cli(subparsers); each registers parsers with set_defaults(func=...)
_AREAS = (
    "fedcomp.counterexamples.cli",
    "fedcomp.theory.cli",
    "fedcomp.rates.cli",
    "fedcomp.neural.cli",
    "fedcomp.report",
    "fedcomp.engine.kernel_cache",
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
    from fedcomp import _interrupt
    previous = _interrupt.watch()
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:
        print(f"fedcomp: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader stopped (`fedcomp ... | head`): not an error of fedcomp; silence the
        # interpreter's own complaint when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except BaseException as exc:  # noqa: BLE001 -- one line for the user, the traceback logged
        from fedcomp.report import _is_interrupt
        if _is_interrupt(exc):  # Ctrl-C, also when numba reports it as a SystemError
            print("fedcomp: interrupted", file=sys.stderr)
            return 130
        if not isinstance(exc, Exception):
            raise
        import tempfile
        import traceback
        fd, log = tempfile.mkstemp(prefix="fedcomp-error-", suffix=".log")
        with os.fdopen(fd, "w") as fh:
            traceback.print_exc(file=fh)
        print(f"fedcomp: internal error: {type(exc).__name__}: {exc} (full traceback in {log})",
              file=sys.stderr)
        return 1
    finally:
        _interrupt.unwatch(previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
