"""JSON-safe copies of results (numpy scalars and arrays, non-finite floats, result objects)."""
from __future__ import annotations

import math


def clean(obj):
    """JSON-safe copy: numpy scalars to Python, non-finite floats to strings."""
    import numpy as np
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, np.ndarray):
        return clean(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if hasattr(obj, "verdict") and hasattr(obj, "detail"):  # a CheckResult inside measured
        return clean({"verdict": obj.verdict, "measured": obj.measured, "detail": obj.detail})
    return str(obj)
