"""Ctrl-C that nothing downstream can swallow.

An interrupt normally surfaces as KeyboardInterrupt (or, from compiled code, as numba's
SystemError wrapping it, which ``fedcomp.report`` recognises). While numba *compiles* a kernel,
though, the exception raised by the SIGINT handler is caught inside the compiler and lost: the
compilation completes and the run goes on as if nothing happened (a ``fedcomp verify`` that
compiles its first kernel when Ctrl-C arrives never stops). The command-line entry therefore
installs :func:`watch` for the duration of a command: SIGINT sets a flag, then raises
KeyboardInterrupt as Python's default handler does, and :func:`check`, called at the entry of
every simulation, raises KeyboardInterrupt again while the flag is set. Library users who do not
go through the CLI keep Python's default handler.
"""
from __future__ import annotations

import signal
import threading

_PENDING = False


def _handler(signum, frame):
    global _PENDING
    _PENDING = True
    signal.default_int_handler(signum, frame)


def watch():
    """Install the handler (main thread only) and clear the flag; returns the previous handler
    (None where it could not be installed), for :func:`unwatch`."""
    global _PENDING
    _PENDING = False
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, _handler)
    return previous


def unwatch(previous) -> None:
    """Restore the handler :func:`watch` replaced and clear the flag."""
    global _PENDING
    _PENDING = False
    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, previous)


def check() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C arrived since :func:`watch`, even if what was running
    then swallowed it."""
    if _PENDING:
        raise KeyboardInterrupt("interrupted (Ctrl-C) earlier in this command")
