"""The neural backend: the simulator's algorithms on PyTorch nn.Modules, the papers' data sets,
models and experiments (``fedcomp neural list / run``). PyTorch is the optional extra
``fedcomp[neural]``; this package imports it only when a model is built or an experiment runs, so
``fedcomp neural list`` works without it.

Modules: :mod:`~fedcomp.neural._core` (device, flat parameter vectors, counter-based minibatch
draws shared with the simulator), :mod:`~fedcomp.neural.models`, :mod:`~fedcomp.neural.data`,
:mod:`~fedcomp.neural.problems` (oracles by autograd), :mod:`~fedcomp.neural.algorithms` (the
steps and the loop), :mod:`~fedcomp.neural.metrics`, :mod:`~fedcomp.neural.experiments`,
:mod:`~fedcomp.neural.cli`.
"""
from fedcomp.neural.experiments import get as get_experiment, names as experiment_names  # noqa
from fedcomp.neural.experiments import run_experiment  # noqa: F401

__all__ = ["experiment_names", "get_experiment", "run_experiment"]
