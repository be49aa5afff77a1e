"""Checks of the rate and complexity claims of the FedDRO paper (built in :mod:`fedcomp.rates`).

The claims are declared elsewhere (another module of this package). So that a missing declaration
never leaves a dangling check (which :func:`fedcomp.theory.claims.all_claims` rejects), the other
modules of the package are imported first, and a claim that none of them declares is declared
here from the paper's text, with a note saying so.
"""
import importlib
import pkgutil

from fedcomp.theory import claims as _claims
from fedcomp.theory import registry as _registry
from fedcomp.theory.claims import Claim, attach_check, register

_CHECKS = {
    "khanduri.thm4.2": "fedcomp.rates.checks:check_thm42",
    "khanduri.thm4.3": "fedcomp.rates.checks:check_thm43",
    "khanduri.cor4.4": "fedcomp.rates.checks:check_cor44",
    "khanduri.rem4.5": "fedcomp.rates.checks:check_rem45",
    "khanduri.thm5.2": "fedcomp.rates.checks:check_thm52",
    "khanduri.cor5.3": "fedcomp.rates.checks:check_cor53",
}

_FALLBACK = {
    "khanduri.thm4.2": ("Theorem 4.2", "rate",
                        "Modified FedAvg (y_k = ybar^t shared every iteration) converges to a "
                        "stationary point of Phi for 1 <= I <= O(T^(1/4)) and some eta.",
                        "E||grad Phi(xbar^{a(T)})||^2 -> 0"),
    "khanduri.thm4.3": ("Theorem 4.3", "rate",
                        "FedDRO with eta = O(sqrt(K/T)), beta = 4 B_g^4 L_f^2 eta, "
                        "I = O(T^(1/4)/K^(3/4)): E||grad Phi(xbar^{a(T)})||^2 = O(1/sqrt(KT)).",
                        "(KT)^(-1/2)"),
    "khanduri.cor4.4": ("Corollary 4.4", "complexity",
                        "FedDRO: sample complexity O(eps^-2), O(K^-1 eps^-2) per client (linear "
                        "speed-up); communication complexity O(eps^-3/2).",
                        {"samples_per_client": "K^-1 eps^-2", "rounds": "eps^-3/2"}),
    "khanduri.rem4.5": ("Remark 4.5", "complexity",
                        "FedDRO sends O(eps^-3/2 d + eps^-2 K^-1 d_g) floats per client: "
                        "eps^-3/2 when d >= eps^-1/2 K^-1 d_g, eps^-2 when d_g >= sqrt(eps) K d.",
                        {"d >> d_g": "eps^-3/2", "d_g >> d": "eps^-2"}),
    "khanduri.thm5.2": ("Theorem 5.2", "rate",
                        "DS-FedDRO with eta = O(1/sqrt(IT)), beta = c_beta eta, gamma_x = "
                        "O(sqrt(K/T)), gamma_y = c gamma_x, I = O(sqrt(T/K)): "
                        "E||grad Phi(xbar^{a(T)})||^2 = O(sqrt(C/(KT))) + O(C'/T).",
                        "(KT)^(-1/2)"),
    "khanduri.cor5.3": ("Corollary 5.3", "complexity",
                        "DS-FedDRO: sample complexity O(eps^-2), O(K^-1 eps^-2) per client; "
                        "communication complexity O(eps^-1).",
                        {"samples_per_client": "K^-1 eps^-2", "rounds": "eps^-1"}),
}

for _info in pkgutil.iter_modules(_registry.__path__):
    if _info.name != __name__.rsplit(".", 1)[-1]:
        importlib.import_module(f"{_registry.__name__}.{_info.name}")

for _cid, _check in _CHECKS.items():
    if _cid not in _claims._REGISTRY:
        _loc, _kind, _stmt, _pred = _FALLBACK[_cid]
        register(Claim(id=_cid, paper="khanduri", location=_loc, statement=_stmt, kind=_kind,
                       predicted=_pred,
                       notes="declared by fedcomp.theory.registry.checks_rates because no other "
                             "registry module declares it"))
    attach_check(_cid, _check)
