"""Figures: finite data, labelled axes, no value below 1e-13 drawn as data on a log axis (exact
zeros go on a marked floor); each figure drawn once by verify, after the verdicts of the claims
it is evidence for, with those verdicts in its corner; a figure for every rate claim and every
constant judged with bound_constant_verdict."""
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from fedcomp import checks, report  # noqa: E402
from fedcomp.checks import Check, CheckResult, Claim, Measurement  # noqa: E402
from fedcomp.checks.predict import steeper  # noqa: E402
from fedcomp.figures import Plot, plot  # noqa: E402
from fedcomp.figures import counterexample as F  # noqa: E402
from fedcomp.figures import style as S  # noqa: E402

CHECKED = [c for c in checks.all_claims() if c.check is not None]


def _is_colorbar(ax):
    return getattr(ax, "_colorbar", None) is not None


def _labelled(ax, which):
    """The axes, or one sharing that axis with it (a stacked or side-by-side panel), is
    labelled."""
    get = "get_xlabel" if which == "x" else "get_ylabel"
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    return any(getattr(a, get)() for a in shared.get_siblings(ax))


def _finite(a):
    a = np.ma.masked_invalid(np.ma.asarray(a, dtype=float))
    return a.compressed()


def _assert_honest(fig, where=""):
    """Finite data, labelled axes, nothing below EXACT_ZERO on a log axis but marked zeros."""
    for ax in fig.axes:
        if _is_colorbar(ax):
            continue
        what = f"{where}: {ax.get_title()!r}"
        assert _labelled(ax, "x") and _labelled(ax, "y"), f"unlabelled axes in {what}"
        for line in ax.get_lines():
            # which coordinates are data (axhline's x, axvline's y are axes fractions)
            on_data = line.get_transform().contains_branch_seperately(ax.transData)
            for axis, data, is_data in (("x", line.get_xdata(), on_data[0]),
                                        ("y", line.get_ydata(), on_data[1])):
                d = np.asarray(data, dtype=float)
                assert np.all(np.isfinite(d)), f"non-finite {axis} data in {what}"
                log = (ax.get_xscale() if axis == "x" else ax.get_yscale()) == "log"
                if is_data and log and line.get_gid() != S.ZERO_GID and d.size:
                    assert d.min() >= S.EXACT_ZERO, f"{d.min()} on a log {axis} axis in {what}"
        for coll in ax.collections:
            for path in coll.get_paths():
                assert np.all(np.isfinite(path.vertices)), f"non-finite band/bar in {what}"
        for im in ax.get_images():
            assert _finite(im.get_array()).size, f"an image with no finite value in {what}"


# --- the figure modules on synthetic data ---------------------------------------------------

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
    assert any(line.get_gid() == S.ZERO_GID for line in fig.axes[0].get_lines())


def test_trajectory_figure_has_both_families_and_limits():
    series = {alg: [{"eta": e, "t": [0, 5, 10], "grad_sq": [1.0, 0.1, 0.0], "limit_sq": 0.01}
                    for e in (0.05, 0.0125)]
              for alg in ("fedavg-case1", "fedavg-case2", "fedavg-modified", "feddro")}
    fig = F.trajectory_figure({"instance": "t", "etas": [0.05, 0.0125], "local_steps": 5,
                               "series": series})
    _assert_honest(fig)
    assert [ax.get_title() for ax in fig.axes] == list(F.FAMILIES)


def test_constants_figure_marks_a_refuted_bound_and_floors_a_zero():
    from fedcomp.figures.constants import constants_figure
    rows = [{"name": "L_Phi", "claimed": 5.0, "supremum": 2.0, "supremum_exact": True,
             "observed_max": 1.9},
            {"name": "halved", "claimed": 1.0, "supremum": 2.0, "supremum_exact": False},
            {"name": "zero", "claimed": 0.0, "supremum": 2.0, "supremum_exact": True,
             "verdict": "fail"}]
    fig = constants_figure(rows, "test")
    _assert_honest(fig)
    colours = [line.get_color() for line in fig.axes[0].get_lines() if line.get_marker() == "D"]
    assert colours == [S.VERDICT_COLOURS["pass"], S.VERDICT_COLOURS["fail"]]
    assert [line for line in fig.axes[0].get_lines() if line.get_gid() == S.ZERO_GID]


def test_badge_strip_keeps_the_content_and_names_each_claim():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2], [1, 2])
    fig.suptitle("t")
    fig.tight_layout()
    before = ax.get_position().height * fig.get_size_inches()[1]
    S.verdict_badge(fig, {"a.thm": "pass", "a.cor": "fail"})
    assert S.badges(fig) == {"a.thm": "pass", "a.cor": "fail"}
    assert ax.get_position().height * fig.get_size_inches()[1] == pytest.approx(before)
    assert fig.get_size_inches()[1] == pytest.approx(3 + 2 * S.BADGE_LINE)
    assert ax.get_position().y1 < 1 - 2 * S.BADGE_LINE / fig.get_size_inches()[1] + 1e-9
    plt.close(fig)


# --- the report's hook on synthetic claims --------------------------------------------------

DRAWN = []


def _line_figure(tag):
    DRAWN.append(tag)
    fig, ax = plt.subplots()
    ax.loglog([1, 2, 4], [1.0, 0.5, 0.25])
    ax.set_xlabel("T")
    ax.set_ylabel("gap")
    return fig


def _broken_figure():
    raise RuntimeError("no figure today")


def _shared(profile, out_dir):
    return Measurement(values={"slope": -0.5}, figures=[
        plot("figures/shared.png", _line_figure, "shared"),
        plot("figures/theorem-only.png", _line_figure, "theorem", claims=("fedcomp.t-thm",)),
        plot("figures/broken.png", _broken_figure, claims=("fedcomp.t-cor",))])


def _judge(predicted, m):
    return CheckResult("fail" if predicted["T"] > -0.4 else "pass", predicted,
                       m.values, "synthetic")


def _claim(cid, pred, deps=()):
    return Claim(id=cid, paper="fedcomp", location="test", statement="test claim", kind="rate",
                 predicted=pred, depends_on=deps, check=Check(_shared, _judge, steeper(("T",))))


def test_verify_draws_each_plot_once_after_the_verdicts(extra_claims, tmp_path, monkeypatch):
    extra_claims(_claim("fedcomp.t-thm", {"T": -0.1}),
                 _claim("fedcomp.t-cor", {"T": -0.5}, ("fedcomp.t-thm",)))
    DRAWN.clear()
    shown, save = {}, S.save

    def spy(fig, path, verdicts=None, key=None):   # the badges as drawn, beside the PNG's record
        shown[path.name] = S.badges(fig)
        _assert_honest(fig, path.name)
        return save(fig, path, verdicts, key)
    monkeypatch.setattr(S, "save", spy)
    rep = report.run_verify(["fedcomp.t-cor"], out=tmp_path, log=open("/dev/null", "w"))
    rows = {r["id"]: r for r in rep["claims"]}
    # the corollary's own check passes, the theorem fails: the dependency rule makes it
    # inconclusive, and that (final) verdict is what its figures carry
    assert rows["fedcomp.t-thm"]["verdict"] == "fail"
    assert rows["fedcomp.t-cor"]["verdict"] == "inconclusive"
    assert sorted(DRAWN) == ["shared", "theorem"]              # each plot drawn once
    assert rows["fedcomp.t-thm"]["figures"] == ["figures/shared.png", "figures/theorem-only.png"]
    assert rows["fedcomp.t-cor"]["figures"] == ["figures/shared.png"]     # broken: left out
    assert "figures/broken.png could not be drawn" in rows["fedcomp.t-cor"]["detail"]
    assert S.saved_verdicts(tmp_path / "figures/shared.png") == {
        "fedcomp.t-thm": "fail", "fedcomp.t-cor": "inconclusive"}
    assert S.saved_verdicts(tmp_path / "figures/theorem-only.png") == {"fedcomp.t-thm": "fail"}
    # one badge, the verdict, for one claim; one per claim, named, for shared evidence
    assert shown == {"theorem-only.png": {None: "fail"},
                     "shared.png": {"fedcomp.t-thm": "fail", "fedcomp.t-cor": "inconclusive"}}
    assert not (tmp_path / "figures/broken.png").exists()
    html = (tmp_path / "report.html").read_text()
    assert html.count("figures/shared.png'") == 2    # embedded under both claims


def test_measuring_writes_no_figure(tmp_path):
    m = _shared("quick", tmp_path)
    assert all(isinstance(f, Plot) for f in m.figures) and not list(tmp_path.iterdir())


# --- every figure of the quick profile ------------------------------------------------------

@pytest.mark.parametrize("cid", [c.id for c in CHECKED])
def test_quick_figures_are_honest_and_carry_the_verdict(cid, measure_quick):
    c = checks.get(cid)
    res = c.judge(measure_quick(c))
    for f in res.figures:
        assert isinstance(f, Plot), f"{cid}: {f!r} is drawn before the verdict"
        assert f.name.startswith("figures/") and f.name.endswith(".png")
        assert not f.claims or cid in f.claims
        fig = f.draw()
        try:
            assert not S.badges(fig), f"{f.name} draws its own verdict"
            S.verdict_badge(fig, res.verdict)
            _assert_honest(fig, f.name)
        finally:
            plt.close(fig)


def _bound_constant_claims(monkeypatch, measure_quick):
    """The claims whose judge calls bound_constant_verdict (a spy in every checks module)."""
    from fedcomp.rates import verdict as V
    used, current = set(), []

    def spy(*a, **k):
        used.add(current[0])
        return V.bound_constant_verdict(*a, **k)
    for name in checks.PAPER_MODULES:
        mod = __import__(f"fedcomp.checks.{name}", fromlist=["x"])
        if hasattr(mod, "bound_constant_verdict"):
            monkeypatch.setattr(mod, "bound_constant_verdict", spy)
    for c in CHECKED:
        if c.kind == "constant":
            current[:] = [c.id]
            c.check.judge(c.predicted, measure_quick(c))
    return used


def _stand_in():
    """A tiny figure drawn in place of a measurement's plot (each real one is drawn and
    checked by test_quick_figures_are_honest_and_carry_the_verdict): this test is about which
    claim gets which figure with which badge, and drawing 30 real figures takes 8 s of CPU."""
    fig, ax = plt.subplots(figsize=(1.5, 1))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return fig


def test_verify_report_has_a_figure_for_every_rate_and_bound_constant_claim(
        monkeypatch, measure_quick, tmp_path):
    import dataclasses

    import fedcomp
    constants = _bound_constant_claims(monkeypatch, measure_quick)
    monkeypatch.undo()
    assert {"khanduri.lem3.5", "zhang.lem2", "huang.lem2", "huang.lem3"} <= constants
    rates = {c.id for c in CHECKED if c.kind == "rate"}
    light = {}

    def measured(claim, profile, out, cache):
        m = measure_quick(claim)
        if id(m) not in light:
            light[id(m)] = dataclasses.replace(m, figures=[
                dataclasses.replace(p, draw=_stand_in) for p in m.figures])
        return light[id(m)]
    monkeypatch.setattr(report, "_measure", measured)
    monkeypatch.setattr(S, "DPI", 40)
    rep = fedcomp.verify(sorted(rates | constants), out=tmp_path, log=open("/dev/null", "w"))
    assert set(rep.verdicts) >= rates | constants
    for cid in rates | constants:
        row = rep[cid]
        assert row["figures"], f"{cid} has no figure"
        for f in row["figures"]:
            # the badge of this claim on the file is its verdict in the report
            assert S.saved_verdicts(tmp_path / f)[cid] == row["verdict"], (cid, f)
        if cid in constants:
            assert f"figures/{cid}-constants.png" in row["figures"]
    assert set(rep.figures) == set((tmp_path / "figures").glob("*.png"))


# --- the communication figure (rounds and floats to reach eps against eps) ------------------

#: the claims whose judge adds figures/<claim>-communication.png, and the predicted exponent of
#: each series it draws (cost = O(eps^p)), in order
COMMUNICATION = {
    "khanduri.cor4.4": lambda p: [p["rounds"]["eps"]] * 4,        # 2 problems x 2 readings
    "khanduri.cor4.4.model-rounds": lambda p: [p["rounds"]["eps"]] * 4,
    "khanduri.cor5.3": lambda p: [p["rounds"]["eps"]],
    "khanduri.rem4.5": lambda p: [p["d >> d_g"]["floats per client"]["eps"],
                                  p["d_g >> d"]["floats per client"]["eps"]],
}


def _drawn_slopes(fig, gid):
    """Slope of log y against log x of each line with `gid`, read back from its data."""
    out = []
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_gid() == gid:
                x, y = (np.log(np.asarray(d, dtype=float)) for d in line.get_data())
                out.append(float(np.polyfit(x, y, 1)[0]))
    return out


def _synthetic_reading(label, alg, slope_eps_vs_cost, predicted, judged=True):
    from fedcomp.figures.communication import reading
    from fedcomp.rates.fit import fit_exponent
    cost = np.array([64.0, 128, 256, 512, 1024])
    noise = np.random.default_rng(0).lognormal(0, 0.05, (8, cost.size))
    return reading(label, alg, fit_exponent(cost, 3.0 * cost ** slope_eps_vs_cost * noise,
                                            n_boot=200), predicted, judged)


def test_communication_figure_draws_fit_and_predicted_slope():
    from fedcomp.figures.communication import FIT_GID, PREDICTED_GID, communication_figure
    panels = [{"cost": "rounds", "title": "synthetic",
               "series": [_synthetic_reading("model rounds", "feddro", -2 / 3, -1.5),
                          _synthetic_reading("Definition 3.7 rounds", "feddro", -0.5, -1.5,
                                             judged=False)]},
              {"cost": "floats", "title": "synthetic floats",
               "series": [_synthetic_reading("d >> d_g", "ds-feddro", -0.5, -2.0)]}]
    fig = communication_figure(panels, "Khanduri et al., Remark (test.claim)")
    try:
        _assert_honest(fig)
        assert _drawn_slopes(fig, PREDICTED_GID) == pytest.approx([-1.5, -1.5, -2.0])
        # the fitted line is the measured one: cost ~ eps^(1/s)
        assert _drawn_slopes(fig, FIT_GID) == pytest.approx([-1.5, -2.0, -2.0], abs=0.1)
        assert [ax.get_yscale() for ax in fig.axes] == ["log", "log"]
        legend = [t.get_text() for ax in fig.axes for t in ax.get_legend().get_texts()]
        assert any("predicted slope -1.5" in t for t in legend)
        assert any("predicted slope -2" in t for t in legend)
        assert "test.claim" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def test_communication_figure_floors_an_exact_zero_eps():
    from fedcomp.figures.communication import communication_figure
    r = _synthetic_reading("model rounds", "feddro", -2 / 3, -1.5)
    r["eps"][-1] = 0.0
    fig = communication_figure([{"cost": "rounds", "title": "t", "series": [r]}], "t (x.y)")
    try:
        _assert_honest(fig)
        zero = [line for line in fig.axes[0].get_lines() if line.get_gid() == S.ZERO_GID]
        assert zero and any("machine precision" in t.get_text() for t in fig.axes[0].texts)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("cid", sorted(COMMUNICATION))
def test_communication_claims_draw_their_predicted_slope(cid, measure_quick):
    from fedcomp.figures.communication import PREDICTED_GID
    c = checks.get(cid)
    res = c.judge(measure_quick(c))
    name = f"figures/{cid}-communication.png"
    found = [f for f in res.figures if f.name == name]
    assert len(found) == 1 and found[0].claims == (cid,), f"{cid}: no {name}"
    fig = found[0].draw()
    try:
        S.verdict_badge(fig, res.verdict)
        _assert_honest(fig, name)
        assert _drawn_slopes(fig, PREDICTED_GID) == pytest.approx(COMMUNICATION[cid](c.predicted))
        # a prediction judged instead of the paper's is the one drawn
        expected = COMMUNICATION[cid]
        wrong = [w for w in c.check.wrong(c.predicted) if expected(w) != expected(c.predicted)]
        assert wrong, f"{cid}: no wrong prediction changes the communication exponent"
        other = c.with_prediction(wrong[0])
        fig2 = [f for f in other.judge(measure_quick(c)).figures if f.name == name][0].draw()
        try:
            assert _drawn_slopes(fig2, PREDICTED_GID) == pytest.approx(
                COMMUNICATION[cid](other.predicted))
        finally:
            plt.close(fig2)
    finally:
        plt.close(fig)


# --- derived against printed (claims judged by exact comparisons) ----------------------------

def test_derivation_ratios_and_figure():
    from fedcomp.figures.derivation import derivation_figure, ratios
    assert ratios({"name": "c", "measured": 2.0, "predicted": 1.0, "verdict": "fail"}).tolist() \
        == [0.5]
    # a constant twice too large in an expression: the ratio is 2 at every symbol value
    r = ratios({"name": "e", "measured": "12*S_F*L", "predicted": "24*S_F*L", "verdict": "fail"})
    assert len(r) == 64 and np.allclose(r, 2.0)
    # a wrong power of a symbol: the ratio spreads over the sampled values
    r = ratios({"name": "p", "measured": "G**4", "predicted": "G**2", "verdict": "fail"})
    assert r.min() < 0.1 and r.max() > 10
    # a derived zero has no ratio: nothing is drawn for it as data; nor for a derivative
    assert ratios({"name": "z", "measured": 0.0, "predicted": 1.0, "verdict": "fail"}).size == 0
    assert ratios({"name": "d", "measured": "Derivative(f(x), x)", "predicted": "x",
                   "verdict": "fail"}).size == 0
    rows = [{"name": "c", "measured": 2.0, "predicted": 1.0, "verdict": "fail"},
            {"name": "e", "measured": "12*S_F", "predicted": "12*S_F", "verdict": "pass"},
            {"name": "z", "measured": 0.0, "predicted": 1.0, "verdict": "fail"}]
    fig = derivation_figure(rows, "t")
    try:
        _assert_honest(fig, "derivation")
        points = [line.get_xdata()[0] for line in fig.axes[0].get_lines()
                  if line.get_marker() == "o"]
        assert points == [0.5, 1.0]
    finally:
        plt.close(fig)
    # yes/no statements: no ratio; a round marker at 1 when printed and found agree, a cross when
    # they do not, and the text says which is which
    assert ratios({"name": "b", "measured": True, "predicted": True, "verdict": "pass"}).size == 0
    fig = derivation_figure([{"name": "same", "measured": True, "predicted": True,
                              "verdict": "pass"},
                             {"name": "differ", "measured": False, "predicted": True,
                              "verdict": "fail"}], "t")
    try:
        marks = [(line.get_marker(), line.get_xdata()[0]) for line in fig.axes[0].get_lines()
                 if line.get_marker() in ("o", "X")]
        assert marks == [("o", 1.0), ("X", 1.0)]
        texts = [t.get_text() for t in fig.axes[0].texts]
        assert "printed yes, found yes" in texts and "printed yes, found no" in texts
    finally:
        plt.close(fig)


def test_claims_judged_on_exact_comparisons_get_the_derivation_figure(measure_quick):
    c = checks.get("wu.cor4.2.constants")
    res = c.judge(measure_quick(c))
    names = [f.name for f in res.figures]
    assert names == ["figures/wu.cor4.2.constants-derived-vs-printed.png"]
    # a claim with its own evidence figure does not get one
    c = checks.get("huang.lem2")
    assert not any("derived-vs-printed" in f.name for f in c.judge(measure_quick(c)).figures)


def test_a_rerun_keeps_a_figure_drawn_from_the_same_data_and_redraws_a_changed_one(tmp_path):
    from fedcomp.figures import plot
    from fedcomp.figures import style as S
    from fedcomp.report import _Figures
    calls = []

    def draw(values):
        calls.append(list(values))
        fig, ax = plt.subplots()
        ax.plot(values)
        return fig

    rows = {"c": {"verdict": "pass", "status": "checked", "figures": ["figures/c.png"],
                  "detail": ""}}
    figs = _Figures([], {}, tmp_path, rows)
    for values, verdict in (([1, 2], "pass"), ([1, 2], "pass"), ([1, 3], "pass"),
                            ([1, 3], "fail")):
        rows["c"]["verdict"] = verdict
        figs.drawn.clear()
        figs._draw(plot("figures/c.png", draw, values, claims=("c",)), ["c"])
    # drawn, kept (same data and verdict), redrawn (new data), redrawn (new verdict)
    assert calls == [[1, 2], [1, 3], [1, 3]]
    assert S.saved_verdicts(tmp_path / "figures" / "c.png") == {"c": "fail"}


def test_one_colour_per_algorithm_and_arm_styles():
    """Every algorithm has its own colour; in a figure of several arms (fedcomp.neural's curves),
    an algorithm's arms keep its colour and differ by line style, a sweep of more arms than line
    styles is drawn in distinct shades of it, and arms of different algorithms never share a
    colour: the collision of the neural figures' old colour cycle (FCSG and Local-SCGDM both
    brown) cannot recur."""
    from matplotlib.colors import to_hex
    from fedcomp.algorithms.base import names
    cols = [c for c, _, _ in S.ALGORITHMS.values()]
    assert len(set(cols)) == len(cols)
    assert set(names()) <= set(S.ALGORITHMS), set(names()) - set(S.ALGORITHMS)
    arms = {"fcsg": "fcsg", "fcsg/5-shot": "fcsg", "local-scgdm": "local-scgdm",
            "local-scgdm/5-shot": "local-scgdm", "coda+": "coda"}
    arms.update({f"feddro/I={i}": "feddro" for i in (1, 2, 4, 8, 16)})
    st = S.arm_styles(arms)
    keys = {(to_hex(v["color"]), v["linestyle"]) for v in st.values()}
    assert len(keys) == len(arms)
    assert st["fcsg"]["color"] == st["fcsg/5-shot"]["color"] == S.colour("fcsg")
    assert st["fcsg"]["linestyle"] != st["fcsg/5-shot"]["linestyle"]
    by_alg = {}
    for arm, alg in arms.items():
        by_alg.setdefault(alg, set()).add(to_hex(st[arm]["color"]))
    algs = list(by_alg)
    for i, a in enumerate(algs):
        for b in algs[i + 1:]:
            assert not by_alg[a] & by_alg[b], (a, b)
    assert to_hex(st["feddro/I=16"]["color"]) == S.colour("feddro")
    # algorithms without a colour of their own (a user's) still get distinct ones
    st = S.arm_styles({"mine": "my-alg", "theirs": "their-alg", "fcsg": "fcsg"})
    cs = [to_hex(v["color"]) for v in st.values()]
    assert len(set(cs)) == 3 and not set(cs[:2]) & set(cols)


def test_the_shared_math_text_parser_draws_the_same_pixels(tmp_path, monkeypatch):
    """Figures measure and draw math text through one parser cache per process
    (style._SharedMathText): the same formula at two sizes, log-axis tick labels and a second
    figure drawn from a warm cache give the pixels of matplotlib's own per-figure parser."""
    from PIL import Image

    def draw(name):
        with S.at_saved_dpi():
            fig, ax = plt.subplots(figsize=(4, 3))
            ax.loglog([1, 10, 100, 1000], [1e-3, 1e-2, 3e-2, 1.0])
            ax.set_title(formula, fontsize=14)
            ax.set_xlabel(formula, fontsize=8)
            ax.set_ylabel(r"$\eta^{-1/2}$")
            S.tight_layout(fig)
            return np.asarray(Image.open(S.save(fig, tmp_path / f"{name}.png")))

    formula = r"$\|\nabla\Phi(\bar x)\|^2$"
    monkeypatch.setattr(S, "_share_mathtext", lambda fig: None)
    own = draw("own")
    monkeypatch.undo()
    S._SHARED_MATHTEXT.clear()
    cold = draw("cold")
    shared = next(iter(S._SHARED_MATHTEXT.values()))
    n_keys = len(shared.memo)
    warm = draw("warm")
    assert np.array_equal(cold, own) and np.array_equal(warm, own)
    assert n_keys >= 5 and len(shared.memo) == n_keys   # every string of the second from cache
    assert {k[2].get_size_in_points() for k in shared.memo if k[0] == formula} == {14.0, 8.0}


def _line(values):
    fig, ax = plt.subplots()
    ax.plot(values)
    return fig


def test_a_file_two_claims_list_from_different_measurements_carries_both_badges(tmp_path):
    """Two checks of different measurements may draw the same content under one name (the
    stored-run figures of wu.sec5.2 and wu.sec5.2.gain): the file shows every such claim's
    badge, redrawn when a later claim lists a file drawn already (audit 5, item 9)."""
    from types import SimpleNamespace as NS
    from fedcomp.report import _Figures
    known = {c: NS(check=NS(measure=object())) for c in ("a", "b")}
    rows = {}
    figs = _Figures(["a", "b"], known, tmp_path, rows)
    for cid, verdict in (("a", "inconclusive"), ("b", "pass")):
        claim = NS(id=cid, check=known[cid].check)
        assert figs.names(claim, [plot("figures/shared.png", _line, [1, 2])]) == \
            ["figures/shared.png"]
        rows[cid] = {"verdict": verdict, "status": "checked", "figures": ["figures/shared.png"],
                     "detail": ""}
        figs.judged()
    figs.finish()
    assert S.saved_verdicts(tmp_path / "figures" / "shared.png") == {"a": "inconclusive",
                                                                     "b": "pass"}
    assert figs.drawn == {"figures/shared.png": ["a", "b"]}


def test_a_method_has_one_colour_in_every_panel():
    """The neural panels name methods as the papers do; each keeps its algorithm's colour and
    marker whatever else a panel draws (CoDA was orange, red and green on the three AUC panels:
    audit 5, item 7); a name that is no algorithm gets a colour from the name itself."""
    p4 = S.method_colours(["LocalSCGDAM", "CoDA", "LocalSGDAM", "LocalSGDM"])
    p8 = S.method_colours(["CoDA", "LocalSGDM"])
    assert p4["CoDA"] == p8["CoDA"] == (S.colour("coda"), S.marker("coda"))
    assert S.method_colours(["CODA+"])["CODA+"][0] == S.colour("coda")
    assert S.method_colours(["Local-SCGDM"])["Local-SCGDM"][0] == S.colour("local-scgdm")
    assert len({c for c, _ in p4.values()}) == 4
    alone = S.method_colours(["5-shot"])["5-shot"]
    assert S.method_colours(["5-shot", "FCSG"])["5-shot"] == alone
    two = S.method_colours(["1-shot", "5-shot"])
    assert two["1-shot"][0] != two["5-shot"][0]
    assert not {c for c, _ in two.values()} & {c for c, _, _ in S.ALGORITHMS.values()}


def test_a_diverged_arm_is_crossed_where_it_diverged_and_dashed_after():
    """An arm whose seed 5 diverged at t = 10: solid up to the last evaluation before, a cross
    at t = 10, then dashed as the mean of the seeds that remain, the legend saying so; never one
    solid curve to the end with the cross at the end (audit 5, item 7)."""
    from fedcomp.figures.neural import curves_figure
    recs = []
    for t, n in ((0, 9), (200, 8), (400, 8)):
        for arm in ("LocalSCGDAM", "LocalSGDM"):
            recs.append({"arm": arm, "t": t, "round": t // 8, "mean": 0.5 + t / 1000,
                         "low": 0.4 + t / 1000, "high": 0.6 + t / 1000,
                         "n": n if arm == "LocalSCGDAM" else 9})
    fig = curves_figure(recs, "test_auc", "title", diverged={"LocalSCGDAM": {5: 10}},
                        note="pairs with LocalSCGDAM undecided here")
    ax = fig.axes[0]
    crosses = [ln for ln in ax.lines if ln.get_marker() == "x"]
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == [10.0]
    dashed = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert len(dashed) == 1 and list(dashed[0].get_xdata()) == [0.0, 200.0, 400.0]
    labels = [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]
    assert any("diverged at t = 10 in seed 5; dashed: mean of the seeds not yet diverged, 8 at "
               "the end" in x for x in labels), labels
    # beside the curves, each arm's compared value on its own axis (hollow: survivors' mean)
    az = fig.axes[1]
    assert [tk.get_text() for tk in az.get_xticklabels()] == ["LocalSCGDAM", "LocalSGDM"]
    hollow = [ln for ln in az.lines if ln.get_markerfacecolor() == "none"]
    assert len(hollow) == 1 and list(hollow[0].get_ydata()) == [0.9]
    assert "pairs with LocalSCGDAM undecided here" in ax.get_title()
    plt.close(fig)
