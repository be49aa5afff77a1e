"""Checks of the constant claims built in :mod:`fedcomp.theory.constants`: Lemma 2 of the AUC
paper (Lemma 3.5 of the FedDRO paper is declared and judged in :mod:`fedcomp.checks.khanduri`).

The claims are declared in :mod:`fedcomp.theory.registry.khanduri` and
:mod:`fedcomp.theory.registry.zhang`; so that a missing declaration never leaves a dangling check
(which :func:`fedcomp.theory.claims.all_claims` rejects), the other registry modules are imported
first and a claim none of them declares is declared here from the paper's text, with a note.
"""
import importlib
import pkgutil

from fedcomp.theory import claims as _claims
from fedcomp.theory import registry as _registry
from fedcomp.theory.claims import Claim, attach_check, register

_CHECKS = {
    "zhang.lem2": "fedcomp.theory.constants:check_auc_lemma2",
}

_FALLBACK = {
    "zhang.lem2": Claim(
        id="zhang.lem2", paper="zhang", location="Section 5 and Lemma 2 (Appendix A)",
        statement="Under Assumptions 1-4, Phi(x) = max_y F(gbar(x), y) is L_Phi-smooth with "
                  "L_Phi = 2 C_g^2 L_f^2/mu + C_f L_g.",
        kind="constant", predicted={"L_Phi": "2*C_g**2*L_f**2/mu + C_f*L_g"},
        notes="declared by fedcomp.theory.registry.checks_constants because no other registry "
              "module declares it"),
}

for _info in pkgutil.iter_modules(_registry.__path__):
    if _info.name != __name__.rsplit(".", 1)[-1]:
        importlib.import_module(f"{_registry.__name__}.{_info.name}")

for _cid, _check in _CHECKS.items():
    if _cid not in _claims._REGISTRY:
        register(_FALLBACK[_cid])
    attach_check(_cid, _check)
