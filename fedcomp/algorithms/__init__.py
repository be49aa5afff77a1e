"""How it is optimized: the registered algorithms (see :mod:`fedcomp.algorithms.base`)."""
from fedcomp.algorithms.base import Algorithm, HyperParam, get, names, register

# Importing a module registers its algorithms.
from fedcomp.algorithms import fedavg, feddro, mbsgd  # noqa: E402,F401
from fedcomp.algorithms import localscgdam, auc_baselines  # noqa: E402,F401
from fedcomp.algorithms import comfedl, robust_baselines  # noqa: E402,F401
from fedcomp.algorithms import fcsg, local_scgd  # noqa: E402,F401

__all__ = ["Algorithm", "HyperParam", "get", "names", "register"]
