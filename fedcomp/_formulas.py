"""Reading formulas written as text (predictions, printed constants) into sympy: the papers'
names are symbols, never sympy's functions or constants."""
from __future__ import annotations


# names sympify would read as its own functions or constants (N() evaluates, S is the singleton
# registry, E Euler's number, I the imaginary unit, beta/gamma/zeta special functions); in the
# papers' formulas they are symbols (N clients, the momentum beta, ...)
_SYMBOL_NAMES = ("N", "S", "E", "I", "O", "Q", "beta", "gamma", "zeta")


def symbol_locals() -> dict:
    import sympy as sp
    return {name: sp.Symbol(name) for name in _SYMBOL_NAMES}


def parse_expression(text: str, where: str = "expression"):
    """sympy expression of a prediction string (``^`` read as power)."""
    import sympy as sp
    try:
        return sp.sympify(text.replace("^", "**"), locals=symbol_locals())
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        raise ValueError(f"{where}: {text!r} is not a sympy expression ({exc})") from None
