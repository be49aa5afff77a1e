"""Predictions: their shape, a user's alternative, and the wrong predictions a check must fail.

A prediction is plain JSON (what ``fedcomp claims --json`` prints): numbers (exponents, printed
values), strings (sympy expressions of constants, "<= -0.5"-style bounds), booleans, lists
(orderings) and dicts of these. A user's prediction (``fedcomp verify --predict``) must have the
same shape as the claim's: the same keys, a number where a number stands, a sympy-parsable string
where the claim has an expression. :func:`conform` enforces that with a one-line error naming
the expected shape.

The ``wrong`` helpers build the mutations of issue 19: each returns predictions a correct check
must call fail on, in the direction that must fail (a steeper exponent than an upper bound
allows, a constant bound halved, a boolean flipped, an ordering reversed, a printed value moved).
"""
from __future__ import annotations

import copy
import json
import numbers
from typing import Any, Callable, Iterable

from fedcomp._formulas import parse_expression, symbol_locals  # noqa: F401 (re-exported)


def shape(value) -> Any:
    """The shape of a prediction, for error messages: the structure with types for leaves."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shape(v) for v in value]
    if isinstance(value, bool):
        return "true|false"
    if isinstance(value, numbers.Number):
        return "number"
    if isinstance(value, str):
        return "expression" if _is_expression(value) else "string"
    return type(value).__name__


def _is_expression(text: str) -> bool:
    """True for a sympy expression in symbols (a constant or a formula), False for prose."""
    import sympy as sp
    try:
        expr = sp.sympify(text.replace("^", "**"), locals=symbol_locals(), evaluate=False)
    except (sp.SympifyError, SyntaxError, TypeError, AttributeError, ValueError):
        return False
    return isinstance(expr, sp.Expr)


def conform(reference, candidate, where: str = "prediction") -> None:
    """Raise ValueError unless `candidate` has the shape of `reference` (module docstring)."""
    def fail(why):
        raise ValueError(f"{where} must have the shape {json.dumps(shape(reference))}: {why}")

    def walk(ref, cand, path, names=False):
        at = path or "the prediction"
        if isinstance(ref, dict):
            if not isinstance(cand, dict):
                fail(f"{at} must be an object")
            missing, extra = set(ref) - set(cand), set(cand) - set(ref)
            if missing or extra:
                fail(f"{at}: missing keys {sorted(missing)}, unknown keys {sorted(extra)}")
            for k in ref:
                walk(ref[k], cand[k], f"{path}.{k}" if path else k)
        elif isinstance(ref, (list, tuple)):
            if not isinstance(cand, (list, tuple)) or len(cand) != len(ref):
                fail(f"{at} must be a list of {len(ref)} items")
            # an ordering ([A, '>', B, ...]) lists method names: "FCSG-M" is no formula there
            ordering = any(r in (">", ">=") for r in ref)
            for i, (r, c) in enumerate(zip(ref, cand)):
                walk(r, c, f"{path}[{i}]", names or ordering)
        elif isinstance(ref, bool):
            if not isinstance(cand, bool):
                fail(f"{at} must be true or false")
        elif isinstance(ref, numbers.Number):
            if isinstance(cand, bool) or not isinstance(cand, numbers.Number):
                fail(f"{at} must be a number")
        elif isinstance(ref, str):
            if not isinstance(cand, str):
                fail(f"{at} must be a string")
            if not names and _is_expression(ref) and not _is_expression(cand):
                fail(f"{at} must be a sympy expression, got {cand!r}")
    walk(reference, candidate, "")


def parse_user_prediction(text: str, reference, claim_id: str):
    """A ``--predict`` argument: JSON text, conformed to the claim's prediction."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = text  # a bare expression or word, e.g. --predict '2*L_f*B_g**2'
    conform(reference, value, f"--predict for {claim_id}")
    return value


# --- mutations: predictions a correct judge must fail -----------------------------------------

def _replace_at(pred, path: tuple, new):
    out = copy.deepcopy(pred)
    if not path:
        return new
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = new
    return out


def _get(pred, path: tuple):
    for k in path:
        pred = pred[k]
    return pred


def each(paths: Iterable[tuple], change: Callable) -> Callable[[Any], list]:
    """``wrong`` function: one mutant per path, the leaf at that path replaced by change(leaf)."""
    paths = list(paths)

    def wrong(pred):
        return [_replace_at(pred, p, change(_get(pred, p))) for p in paths]
    return wrong


def steeper(*paths: tuple, by: float = 0.5) -> Callable[[Any], list]:
    """Upper-bound exponents made steeper by `by` (a faster rate than the bound states: a run
    that attains the stated rate must fail it)."""
    return each(paths, lambda v: v - by)


def shifted(*paths: tuple, by: float = 0.5) -> Callable[[Any], list]:
    """Exponents that must be matched exactly, moved both ways."""
    def wrong(pred):
        return each(paths, lambda v: v - by)(pred) + each(paths, lambda v: v + by)(pred)
    return wrong


def scaled(*paths: tuple, factors=(0.5, 2.0)) -> Callable[[Any], list]:
    """Constants (numbers or sympy strings) multiplied by each factor."""
    def change_by(f):
        def change(v):
            if isinstance(v, str):
                return f"{f}*({v})"
            return v * f
        return change

    def wrong(pred):
        return [m for f in factors for m in each(paths, change_by(f))(pred)]
    return wrong


def flipped(*paths: tuple) -> Callable[[Any], list]:
    """Booleans negated."""
    return each(paths, lambda v: not v)


def reversed_order(*paths: tuple) -> Callable[[Any], list]:
    """Orderings (lists) reversed."""
    return each(paths, lambda v: list(reversed(v)))


def itself(pred) -> list:
    """The wrong predictions of a claim whose printed prediction is false on the measurement:
    the prediction itself (a user's opposite prediction passes)."""
    return [pred]


def combine(*wrongs: Callable[[Any], list]) -> Callable[[Any], list]:
    def wrong(pred):
        return [m for w in wrongs for m in w(pred)]
    return wrong


def cheaper(*paths: tuple, by: float = 0.5) -> Callable[[Any], list]:
    """Complexity exponents (negative powers of eps) made smaller in magnitude by `by` (halved
    where that would reach 0): a claim of fewer samples or rounds than the run needs."""
    return each(paths, lambda v: v + by if v + by < 0 else v / 2)


def times(factor: str, *paths: tuple) -> Callable[[Any], list]:
    """Order expressions (sympy strings) multiplied by `factor`, e.g. "eps**(1/2)" (a claim of
    a smaller order)."""
    return each(paths, lambda v: f"({v})*{factor}")
