"""Figures: finite data, labelled axes, and no value below 1e-13 drawn as data on a log axis
(exact zeros go on the marked floor)."""
import matplotlib
import numpy as np

matplotlib.use("Agg")

from fedcomp.figures import counterexample as F  # noqa: E402
from fedcomp.figures import style as S  # noqa: E402


def _assert_honest(fig):
    for ax in fig.axes:
        assert ax.get_xlabel() and (ax.get_ylabel() or ax is not fig.axes[0])
        for line in ax.get_lines():
            y = np.asarray(line.get_ydata(), dtype=float)
            assert np.all(np.isfinite(y)), ax.get_title()
            if ax.get_yscale() == "log":
                floor_marker = line.get_marker() == "v" or line.get_linestyle() == ":"
                assert floor_marker or np.all(y >= S.EXACT_ZERO), (ax.get_title(), y.min())


def test_gap_figure_draws_exact_zeros_on_a_floor_not_as_data():
    etas = list(np.geomspace(0.01, 0.1, 40))
    panel = {"I": 2, "limits": {"fedavg-case1": 0.5, "feddro": None},
             "curves": {"fedavg-case1": {"eta": etas, "gap": [0.5] * 40},
                        "feddro": {"eta": etas, "gap": [1e-17] * 20 + [None] + [1e-3] * 19}},
             "markers": {"fedavg-case1": {"eta": [0.01], "gap": [0.5]},
                         "feddro": {"eta": [0.01, 0.1], "gap": [0.0, 1e-3]}}}
    fig = F.gap_figure({"instance": "test", "panels": [panel]})
    S.verdict_badge(fig, "reproduced")
    _assert_honest(fig)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any("machine precision" in t for t in texts)
    assert S.badges(fig) == {None: "reproduced"}


def test_trajectory_figure_has_both_families_and_limits():
    series = {alg: [{"eta": e, "t": [0, 5, 10], "grad_sq": [1.0, 0.1, 0.0], "limit_sq": 0.01}
                    for e in (0.05, 0.0125)]
              for alg in ("fedavg-case1", "fedavg-case2", "fedavg-modified", "feddro")}
    fig = F.trajectory_figure({"instance": "t", "etas": [0.05, 0.0125], "local_steps": 5,
                               "series": series})
    _assert_honest(fig)
    assert [ax.get_title() for ax in fig.axes] == list(F.FAMILIES)


def test_constants_figure_marks_a_refuted_bound():
    from fedcomp.figures.constants import constants_figure
    rows = [{"name": "L_Phi", "claimed": 5.0, "supremum": 2.0, "supremum_exact": True,
             "observed_max": 1.9},
            {"name": "halved", "claimed": 1.0, "supremum": 2.0, "supremum_exact": False}]
    fig = constants_figure(rows, "test")
    _assert_honest(fig)
    colours = [line.get_color() for line in fig.axes[0].get_lines() if line.get_marker() == "D"]
    assert colours == [S.VERDICT_COLOURS["pass"], S.VERDICT_COLOURS["fail"]]
