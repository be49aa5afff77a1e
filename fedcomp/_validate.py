"""Input checking shared by the public entry points.

Every check raises ``ValueError`` naming the parameter and the accepted range, so that a user
never sees a numba traceback for bad input.
"""
from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

import numpy as np


def positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def real_in(name: str, value, low: float = -math.inf, high: float = math.inf,
            low_open: bool = True, high_open: bool = True) -> float:
    """A finite real in the interval described by (low, high) and the openness flags."""
    lo_b = "(" if low_open else "["
    hi_b = ")" if high_open else "]"
    rng = f"{lo_b}{low:g}, {high:g}{hi_b}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number in {rng}, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite real number in {rng}, got {value!r}")
    bad_low = v <= low if low_open else v < low
    bad_high = v >= high if high_open else v > high
    if bad_low or bad_high:
        raise ValueError(f"{name} must be in {rng}, got {v!r}")
    return v


def finite_array(name: str, value, shape: tuple | None = None, ndim: int | None = None,
                 dtype=np.float64) -> np.ndarray:
    try:
        arr = np.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {arr.shape}")
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (found NaN or inf)")
    return np.ascontiguousarray(arr)


def seed_value(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def output_dir(name: str, path) -> Path:
    """A directory the command may write into, checked (and created) before any work starts:
    an existing non-directory or an uncreatable path is a ValueError naming the option."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{name} {p} exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{name} {p} cannot be created: {exc.strerror or exc}") from None
    if not os.access(p, os.W_OK):
        raise ValueError(f"{name} {p} is not writable")
    return p


def output_file(name: str, path, formats=None) -> Path:
    """A file the command will write, checked before any work starts: not an existing directory,
    not an existing read-only file, its folder creatable and writable (checked and created as in
    :func:`output_dir`) and, when `formats` is given, a suffix among them (e.g. the image formats
    a figure can be saved in). Each failure is a ValueError naming the option."""
    p = Path(path)
    if str(path) == "" or p.name in ("", ".", ".."):
        raise ValueError(f"{name} must be a file path, got {str(path)!r}")
    if p.is_dir():
        raise ValueError(f"{name} {p} is a directory; give a file path")
    if formats is not None:
        suffix = p.suffix.lower().lstrip(".")
        if suffix not in formats:
            raise ValueError(f"{name} {p} must end in one of "
                             f"{', '.join('.' + f for f in sorted(formats))}, got "
                             f"{'.' + suffix if suffix else 'no suffix'}")
    output_dir(f"{name} folder", p.parent)
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{name} {p} exists and is not writable")
    return p
