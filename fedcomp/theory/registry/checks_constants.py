"""Checks of the constant claims built in :mod:`fedcomp.theory.constants`: Lemma 3.5 of the
FedDRO paper (Lemma 2 of the AUC paper, ``zhang.lem2``, is declared and judged in
:mod:`fedcomp.checks.zhang`).

The claim is declared in :mod:`fedcomp.theory.registry.khanduri`; so that a missing declaration never leaves a dangling check
(which :func:`fedcomp.theory.claims.all_claims` rejects), the other registry modules are imported
first and a claim none of them declares is declared here from the paper's text, with a note.
"""
import importlib
import pkgutil

from fedcomp.theory import claims as _claims
from fedcomp.theory import registry as _registry
from fedcomp.theory.claims import Claim, attach_check, register

_CHECKS = {
    "khanduri.lem3.5": "fedcomp.theory.constants:check_lemma35",
}

_FALLBACK = {
    "khanduri.lem3.5": Claim(
        id="khanduri.lem3.5", paper="khanduri", location="Lemma 3.5",
        statement="Under Assumption 3.2, Phi = h + f(g) is L_Phi-smooth with "
                  "L_Phi = L_h + B_f L_g + B_g^2 L_f.",
        kind="constant", predicted={"L_Phi": "L_h + B_f*L_g + B_g**2*L_f"},
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
