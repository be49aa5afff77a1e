"""Experiment claims judged from stored neural runs (issue 16).

The papers' neural experiments cost CPU hours, so ``fedcomp verify`` does not run them: it reads
the runs ``fedcomp neural run NAME --seeds N --out results/neural/NAME`` stored
(:mod:`fedcomp.neural.store`; the repository carries the runs its docs quote). An experiment
claim is an ordering of methods on a metric ("A > B, C > D": every method of a tier above every
method of each later tier); :func:`experiment_check` builds its :class:`~fedcomp.checks.core.Check`:

* **measure** reads the final value of every run (or, with ``points="all"``, every evaluation
  after the start) per method, cell (a setting such as p = 4) and seed, the runs that diverged,
  the budget and the reproducing command, and returns the curves with seed bands as a figure.
  Each cell is read at the largest budget the store holds for all its arms with every seed
  (:func:`fedcomp.neural.store.load_largest`; the manifest's budget when it is the only one),
  so the arms compared within a cell always share one budget, and a store that also holds a
  longer run of some arms (the Omniglot MAML experiment's 100-iteration GPU runs beside the
  complete 20-iteration set) judges each cell on the most training it has; the detail names
  each cell's budget when they differ;
* **judge** compares every pair of methods in different tiers, paired by seed, with
  :func:`fedcomp.rates.verdict.ordering_verdict`, and combines the pairs: the claim passes when
  every pair's 95 % interval of the paired difference lies above 0 (an intersection of tests:
  no correction), and fails when one pair's interval lies below 0 at 1 - 0.05/n, n the claim's
  (pair, evaluation point) comparisons (Bonferroni: one reversed pair among many refutes the
  ordering only at the family's level); otherwise it is inconclusive. The family counts the
  comparisons of the claim: those of this check, or of all the parts of a :func:`joint_check`
  together. A method whose runs diverged in every seed while its rival's did not
  ranks below it (fail for "diverged > rival"); partial divergence is inconclusive. Methods the
  experiment does not run are named and not judged. Every verdict names the budget, what the
  paper used, and the command that reproduces the runs; with no stored runs the claim is
  inconclusive with that command and the data it needs.

The mutation tests (tests/test_checks_layer.py) judge each check's wrong predictions (the
reversed ordering) on :func:`synthetic_measurement`, a measurement where the printed ordering
holds by a wide margin: there the printed ordering must pass and every wrong one fail, so no
experiment check passes whatever the data say.
"""
from __future__ import annotations

import functools
import math

from fedcomp.checks.core import CheckResult, Check, Measure, Measurement
from fedcomp.figures import plot


def tiers(ordering) -> list[list[str]]:
    """["A", ">", "B, C", ">", "D"] -> [["A"], ["B", "C"], ["D"]]."""
    out, cur = [], []
    if ">=" in ordering:
        raise ValueError("only strict orderings ('>') are judged from stored runs; '>=' (not "
                         "worse) has no rule here")
    for item in ordering:
        if item == ">":
            out.append(cur)
            cur = []
        else:
            cur += [s.strip() for s in str(item).split(",") if s.strip()]
    out.append(cur)
    if len(out) < 2 or not all(out):
        raise ValueError(f"an ordering reads [A, '>', B, ...] with a method on each side of every "
                         f"'>', got {ordering}")
    return out


def reversed_tiers(pred, key="ordering"):
    """The wrong prediction of an ordering claim: the list reversed (its tiers in reverse order,
    the same shape)."""
    return [{**pred, key: list(reversed(pred[key]))}]


def _at_round(g, r, metric) -> float:
    """The metric of one run where it has done exactly r communication rounds (its first
    evaluation there; NaN when it has none)."""
    hit = g[g["round"] == r].sort_values("t")
    return float(hit[metric].iloc[0]) if len(hit) else math.nan


def _digest(obj) -> str:
    import hashlib
    import json
    return hashlib.sha256(json.dumps(obj).encode()).hexdigest()[:6]


def _curve_records(stored, metric, arms):
    df = stored.curves(metric)
    return [] if df.empty else df[df["arm"].isin(arms)].to_dict("records")


def _stored(experiment, paper_budget, note):
    """(the stored runs or None, the values every stored-run measurement starts from)."""
    from fedcomp.neural import experiments as E
    from fedcomp.neural.store import default_root, load
    exp = E.get(experiment)
    stored = load(experiment)
    where = default_root() / experiment
    # a --smoke store holds runs on synthetic stand-ins of the data: no evidence about a paper
    smoke = stored is not None and bool(stored.manifest.get("smoke"))
    if smoke:
        stored = None
    base = {"experiment": experiment, "paper_budget": paper_budget, "note": note,
            "data_needs": exp.data_needs, "source": str(where), "present": stored is not None,
            "smoke": smoke}
    if stored is None:
        base["command"] = exp.command(f"results/neural/{experiment}") + " (then fedcomp verify)"
    return stored, base


def _nothing_stored(base) -> Measurement:
    what = ("only a --smoke run (synthetic stand-in data)" if base.get("smoke")
            else "no stored runs")
    return Measurement(values=base, detail=f"{what} of {base['experiment']} in "
                                           f"{base['source']}")


def _absent(predicted, v) -> CheckResult:
    what = ("the stored runs of {e} ({s}) are a --smoke run on synthetic stand-ins of the data, "
            "no evidence about the paper" if v.get("smoke") else "no stored runs of {e} ({s})")
    return CheckResult("inconclusive", predicted, None,
                       what.format(e=v["experiment"], s=v["source"])
                       + f"; it needs {v['data_needs']}; run `{v['command']}` where the data "
                         f"are (the paper used {v['paper_budget']})")


def _measure_ordering(experiment, metrics, cells, paper_budget, note, points, key, profile,
                      out_dir) -> Measurement:
    """The measurement of :func:`experiment_check` (module docstring)."""
    stored, base = _stored(experiment, paper_budget, note)
    if stored is None:
        return _nothing_stored(base)
    from fedcomp.neural.store import load_largest, missing_at_largest
    values = {**base, "present": True, "command": stored.manifest["command"],
              "seeds": stored.seeds, "cells": {}}
    figures, budgets = [], {}
    for cell, arms in cells.items():
        # each cell at the largest budget where all its arms have every seed (the manifest's
        # when that is the only one): the comparisons within a cell never mix budgets
        stored_c = load_largest(experiment, arms.values()) or stored
        budgets[cell] = stored_c.budget()
        gap = missing_at_largest(experiment, arms.values())
        if gap:     # a larger budget holds some of the cell's arms: say what would complete it
            (T, _), missing, cmd = gap
            values.setdefault("incomplete", []).append(
                f"{cell or 'the arms'} judged at {stored_c.manifest['iterations']} iterations, "
                f"the largest budget complete for all its arms; at {T} iterations the store "
                f"lacks {', '.join(missing)}: `{cmd}` would let it be judged there")
        div = stored_c.diverged()
        table = stored_c.table
        per_metric = {}
        ran = [table[table["arm"] == a] for a in arms.values()]
        common = min((int(g["round"].max()) for g in ran if not g.empty), default=0)
        for metric in metrics:
            meth = {}
            for method, arm in arms.items():
                g = table[table["arm"] == arm]
                if g.empty:
                    # an arm of the claim's mapping without stored runs: the claim cannot
                    # be judged on the others alone (judge: inconclusive)
                    values.setdefault("missing", []).append(
                        f"{method} ({arm}{', ' + cell if cell else ''})")
                    continue
                if points == "final":
                    pts = {"final": stored_c.finals(metric)[arm]}
                elif points == "gain":
                    # final minus the same run's value at t = 0 (the starting model's score on
                    # the arm's own evaluation protocol)
                    start = {int(sd): float(gs.loc[gs["t"] == 0, metric].iloc[0])
                             if (gs["t"] == 0).any() else math.nan
                             for sd, gs in g.groupby("seed")}
                    pts = {"gain from t = 0": {sd: v - start.get(sd, math.nan) for sd, v in
                                               stored_c.finals(metric)[arm].items()}}
                elif points == "rounds":
                    pts = {f"round {common}": {
                        int(s): _at_round(gs, common, metric)
                        for s, gs in g.groupby("seed")}}
                else:
                    pts = {}
                    for t, gt in g[g["t"] > 0].groupby("t"):
                        pts[str(int(t))] = {int(s): float(v) for s, v in
                                            zip(gt["seed"], gt[metric])}
                meth[method] = {"points": pts, "diverged": div.get(arm, {})}
                if points == "gain":
                    meth[method]["start"] = start
            per_metric[metric] = meth
        values["cells"][cell] = per_metric
        present = [a for a in arms.values() if a in stored_c.arms]
        by_arm = {a: m for m, a in arms.items()}
        for metric in metrics:
            recs = _curve_records(stored_c, metric, present)
            shown_div = {by_arm[a]: div[a] for a in present if a in div}
            if recs:
                from fedcomp.figures.neural import curves_figure
                # one figure per content: claims that map the same arms the same way
                # share it; another mapping (ComFedL at gamma 0.5 or 2) gets its own name
                part = ("" if key == "ordering" else "-" + key.split()[0]) + "-" + _digest(
                    [sorted(arms.items()), points == "rounds"])
                figures.append(plot(
                    f"figures/{experiment}-{metric}{('-' + cell) if cell else ''}{part}.png"
                    .replace("=", "").replace(" ", ""), curves_figure,
                    [{**r, "arm": by_arm[r["arm"]]} for r in recs], metric,
                    f"{experiment}{' ' + cell if cell else ''}: {metric} "
                    f"(mean, 95 % interval over {len(stored_c.seeds)} seeds, "
                    f"{stored_c.manifest['iterations']} iterations)",
                    x="round" if points == "rounds" else "t",
                    diverged=shown_div, compare_at=common if points == "rounds" else None,
                    labels=_legend_labels(arms, cell),
                    note=_panel_note(shown_div, len(stored_c.seeds)),
                    panel=_panel(experiment, key, cell, metric)))
    one = len(set(budgets.values())) == 1
    values["budget"] = (next(iter(budgets.values())) if one else "; ".join(
        f"{cell or 'all arms'}: {b}" for cell, b in budgets.items()))
    return Measurement(values=values, figures=figures,
                       detail=f"stored runs of {experiment}: {values['budget']}")


def divergence_verdict(a: str, b: str, da: dict, db: dict, n_seeds: int) -> tuple:
    """(verdict, reason) of "a above b" when a run of either diverged (da, db: {seed: iteration};
    one of them not empty): decided only when one arm diverged in every seed and the other in
    none; otherwise inconclusive (the finals of the seeds that remain are no paired sample)."""
    if da and not db and len(da) == n_seeds:
        return "fail", f"{a} diverged in every seed (iteration by seed {da}), {b} did not"
    if db and not da and len(db) == n_seeds:
        return "pass", f"{b} diverged in every seed (iteration by seed {db}), {a} did not"
    return "inconclusive", f"runs diverged ({a}: {da or 'none'}, {b}: {db or 'none'})"


def _panel_note(div: dict, n_seeds: int) -> str:
    """What a panel's verdict cannot judge on its curves: the arms (by method) whose runs
    diverged in some seeds only, so that every pair with one of them is undecided
    (:func:`divergence_verdict`); "" when there is none."""
    some = [m for m, d in div.items()
            if d and divergence_verdict(m, "", d, {}, n_seeds)[0] == "inconclusive"]
    if not some:
        return ""
    return (f"pairs with {' or '.join(some)} undecided here: "
            f"{'its' if len(some) == 1 else 'their'} runs diverged in some seeds")


def _panel(experiment: str, key: str, cell: str, metric: str) -> str:
    """The :attr:`fedcomp.figures.Plot.panel` of an ordering's figure of one cell and metric
    (the key of ``CheckResult.panels`` its judge fills; unique within a joint claim)."""
    return f"{experiment}|{key}|{cell}|{metric}"


def _legend_labels(arms: dict, cell: str) -> dict:
    """{method: "method (setting)"} for the methods run at a setting their name and the cell's
    do not say (ComFedL as the arm comfedl/gamma=2: "ComFedL (gamma=2)")."""
    out = {}
    for method, arm in arms.items():
        setting = arm.partition("/")[2]
        if setting and setting not in cell and setting not in method:
            out[method] = f"{method} ({setting})"
    return out


def _own_family(parts: list, v: dict) -> int:
    """The comparisons among a check's parts: all of them but the "missing arms" part."""
    return len(parts) - (1 if v.get("missing") else 0)


def experiment_check(experiment: str, metrics: tuple, cells: dict, paper_budget: str,
                     key: str = "ordering", points: str = "final", higher_is_better=True,
                     note: str = "", divergence_note: str = "") -> Check:
    """The Check of an ordering claim on stored runs of `experiment`.

    cells : {cell name: {method name used in the claim: arm label of the experiment}}
    metrics : the metrics judged (each must order the methods)
    points : "final" (the last evaluation), "all" (every evaluation after t = 0: "above
        consistently over training"), "rounds" (every arm after the same number of
        communication rounds R, the fewest any arm of the cell completes: the arms of a sweep
        over local steps, evaluated where each has done R rounds; an arm without an evaluation
        there has no value, and the claim is inconclusive) or "gain" (the final value minus the
        same run's value at t = 0: what training added, when the arms' evaluations differ
        already at the start; the detail also gives that head start, not judged)
    note : appended to every detail; divergence_note : appended only when a compared arm
        diverged (why it does, say)
    """
    if points not in ("final", "all", "rounds", "gain"):
        raise ValueError(f"points must be 'final', 'all', 'rounds' or 'gain', got {points!r}")

    def compare(predicted, v):
        """Every comparison the ordering implies on the measurement `v`: the parts (a verdict,
        or an index into `pending` for a pair judged on its interval once the family is known),
        their reasons, the pending interval comparisons, the methods not run, whether an arm
        compared diverged."""
        from fedcomp.rates.seeds import paired_difference
        order = tiers(predicted[key])
        mapped = {meth for arms in cells.values() for meth in arms}
        parts, reasons, unmeasured = [], [], set()
        where: list = []     # the panel (_panel) of each part; None for "missing arms"
        pending: list = []   # (label, a by seed, b by seed): the interval comparisons
        diverged = False
        if v.get("missing"):
            parts.append("inconclusive")
            where.append(None)
            reasons.append(f"no stored runs of {', '.join(v['missing'])}: run `{v['command']}` "
                           "with those arms")
        sign = 1.0 if higher_is_better else -1.0
        for cell, per_metric in v["cells"].items():
            for metric, meth in per_metric.items():
                for i, hi in enumerate(order):
                    for lo in [x for t in order[i + 1:] for x in t]:
                        for a in hi:
                            if a not in meth or lo not in meth:
                                unmeasured |= {x for x in (a, lo) if x not in meth
                                               and x not in mapped}
                                continue
                            name = f"{a} > {lo} ({metric}{', ' + cell if cell else ''})"
                            da, db = meth[a]["diverged"], meth[lo]["diverged"]
                            diverged |= bool(da or db)
                            panel = _panel(experiment, key, cell, metric)
                            if da or db:
                                verdict, why = divergence_verdict(a, lo, da, db, len(v["seeds"]))
                                parts.append(verdict)
                                where.append(panel)
                                reasons.append(f"{name}: {why}")
                                continue
                            for pt, va in meth[a]["points"].items():
                                vb = meth[lo]["points"].get(pt)
                                if vb is None:
                                    continue
                                bad = [x for x in list(va.values()) + list(vb.values())
                                       if not math.isfinite(x)]
                                if bad:
                                    parts.append("inconclusive")
                                    where.append(panel)
                                    reasons.append(f"{name}: a non-finite value at {pt} "
                                                   "(a run without a value there)")
                                    continue
                                label = (name if pt == "final" else f"{name} at {pt}"
                                         if points == "rounds" else f"{name}, {pt}"
                                         if points == "gain" else f"{name} at t = {pt}")
                                # judged below, once the number of comparisons is known
                                pending.append((label, {s: sign * x for s, x in va.items()},
                                                {s: sign * x for s, x in vb.items()}))
                                parts.append(len(pending) - 1)
                                where.append(panel)
                                reasons.append(len(pending) - 1)
                            sa, sb = meth[a].get("start"), meth[lo].get("start")
                            if sa and sb and all(map(math.isfinite, [*sa.values(),
                                                                     *sb.values()])):
                                hs = paired_difference(sa, sb)
                                reasons.append(f"the head start of {a} over {lo} at t = 0 (not "
                                               f"judged): {hs.mean:+.4g} [{hs.low:+.4g}, "
                                               f"{hs.high:+.4g}] over {hs.n} seeds")
        return parts, reasons, pending, unmeasured, diverged, where

    def comparisons(predicted, m: Measurement) -> int:
        """The check's family: every (pair, evaluation point) the ordering compares, those
        decided by divergence or left undecided by a missing value included (the "missing
        arms" part is no comparison); 0 with no stored runs."""
        if not m.values["present"]:
            return 0
        return _own_family(compare(predicted, m.values)[0], m.values)

    def judge(predicted, m: Measurement, family: int | None = None) -> CheckResult:
        """`family`: the claim's number of comparisons when this check is one part of a
        :func:`joint_check` (None: this check's own, :func:`comparisons`)."""
        from fedcomp.rates.verdict import combine, paired_ordering_verdict
        v = m.values
        if not v["present"]:
            return _absent(predicted, v)
        parts, reasons, pending, unmeasured, diverged, where = compare(predicted, v)
        family = max(1, _own_family(parts, v) if family is None else family)
        judged = [paired_ordering_verdict(label, a_, b_, family) for label, a_, b_ in pending]
        parts = [judged[p].verdict if isinstance(p, int) else p for p in parts]
        # each figure's panel (one cell and metric): the verdict of its own pairs
        panels = {pn: combine([p for p, w in zip(parts, where) if w == pn])
                  for pn in dict.fromkeys(w for w in where if w is not None)}
        reasons = [judged[r].reason if isinstance(r, int) else r for r in reasons
                   if not (isinstance(r, int) and points == "all"
                           and judged[r].verdict == "pass")]
        verdict = combine(parts) if parts else "inconclusive"
        if points == "all" and parts:
            n_pass = sum(p == "pass" for p in parts)
            reasons.append(f"{n_pass} of {len(parts)} (pair, evaluation point) comparisons "
                           "pass at 95 %")
        detail = ("; ".join(reasons) if reasons else "no pair of the ordering was measured")
        detail += (f"; budget: {v['budget']}; the paper: {v['paper_budget']}")
        if v.get("incomplete"):
            detail += "; " + "; ".join(v["incomplete"])
        if unmeasured:
            detail += f"; not run here (not judged): {sorted(unmeasured)}"
        if v.get("note"):
            detail += f"; {v['note']}"
        if diverged and divergence_note:
            detail += f"; {divergence_note}"
        return CheckResult(verdict, predicted, v["cells"], detail, panels=panels)

    measure = Measure(_measure_ordering, experiment, metrics, cells, paper_budget, note, points,
                      key, name=f"stored[{experiment}]", by_profile=False,
                      synthetic=functools.partial(synthetic_measurement, key=key, cells=cells,
                                                  metrics=metrics, points=points,
                                                  higher_is_better=higher_is_better))
    judge.comparisons = comparisons
    return Check(measure, judge, lambda pred: reversed_tiers(pred, key))


def synthetic_measurement(predicted, key, cells, metrics, points, higher_is_better=True,
                          seeds=(0, 1, 2)) -> Measurement:
    """A measurement in which `predicted`'s ordering holds by a wide margin (tier i scores
    0.9 - 0.1 i, seed noise 1e-3), for the mutation tests (module docstring)."""
    order = tiers(predicted[key])
    sign = 1.0 if higher_is_better else -1.0
    cells_v = {}
    for cell, arms in cells.items():
        cells_v[cell] = {}
        for metric in metrics:
            meth = {}
            for i, tier in enumerate(order):
                for method in tier:
                    vals = {s: sign * (0.9 - 0.1 * i) + 1e-3 * math.sin(s + i) for s in seeds}
                    pts = ({"final": vals} if points == "final" else
                           {"gain from t = 0": vals} if points == "gain" else
                           {"100": vals, "200": vals})
                    meth[method] = {"points": pts, "diverged": {}}
            cells_v[cell][metric] = meth
    return Measurement(values={"experiment": "synthetic", "present": True, "cells": cells_v,
                               "seeds": list(seeds), "budget": "synthetic",
                               "paper_budget": "synthetic", "command": "none", "note": ""})


# --- "performance rises with I, then saturates" (FedDRO Figures 3-4) ---------------------------
AT = {"rounds": "after the same number of communication rounds R = T / max(I) (the arm with I "
                "local steps at t = R I)",
      "iterations": "after the same number of local steps T (the arm with I local steps after "
                    "T / I rounds)"}


def _measure_saturation(experiment, metric, methods, at, paper_budget, note, profile,
                        out_dir) -> Measurement:
    """The measurement of :func:`local_steps_check`."""
    stored, base = _stored(experiment, paper_budget, note)
    if stored is None:
        return _nothing_stored(base)
    T = int(stored.manifest["iterations"])
    table = stored.table
    grid = sorted({int(a.split("/I=")[1]) for a in stored.arms if "/I=" in a})
    div = stored.diverged()
    values = {**base, "command": stored.manifest["command"], "budget": stored.budget(),
              "seeds": stored.seeds, "at": at, "methods": {}, "problems": []}
    records = []
    for method, prefix in methods.items():
        per_i = {}
        for i in grid:
            arm = f"{prefix}/I={i}"
            g = table[table["arm"] == arm]
            if g.empty:
                values["problems"].append(f"no stored runs of {arm}")
                continue
            rounds = T // grid[-1]
            t_at = T if at == "iterations" else rounds * i
            vals = {}
            for s in stored.seeds:
                d = div.get(arm, {}).get(s)
                gs = g[g["seed"] == s]
                v = (_at_round(gs, rounds, metric) if at == "rounds" else
                     float(gs.loc[gs["t"] == T, metric].iloc[0]) if (gs["t"] == T).any()
                     else math.nan)
                if d is not None and d <= t_at:
                    values["problems"].append(f"{arm} diverged at t = {d} (seed {s})")
                elif not math.isfinite(v):
                    values["problems"].append(f"{arm} has no {metric} at t = {t_at} "
                                              f"(seed {s}): evaluated elsewhere")
                else:
                    vals[s] = v
            per_i[str(i)] = vals
            if len(vals) >= 2:
                from fedcomp.rates.seeds import mean_interval
                iv = mean_interval(list(vals.values()))
                records.append({"arm": method, "t": i, "mean": iv.mean, "low": iv.low,
                                "high": iv.high, "n": iv.n})
        values["methods"][method] = per_i
    figures = []
    if records:
        from fedcomp.figures.neural import parameter_figure
        figures.append(plot(f"figures/{experiment}-{metric}-{at}.png", parameter_figure,
                            records, "local steps I", metric,
                            f"{experiment}: {metric} at equal {at}\n(mean, 95 % "
                            f"interval over {len(stored.seeds)} seeds)"))
    return Measurement(values=values, figures=figures,
                       detail=f"stored runs of {experiment}: {stored.budget()}")


def local_steps_check(experiment: str, metric: str, methods: dict, at: str, paper_budget: str,
                      key: str, note: str = "") -> Check:
    """The Check of "`metric` first improves as the local steps I grow, then saturates" on the
    stored runs of an I sweep (arms ``PREFIX/I=i``, e.g. feddro-adult-local-steps), judged per
    method with :func:`fedcomp.rates.verdict.saturation_verdicts` on the values `at`:

    * ``"rounds"``: every arm after the same number of communication rounds (the runs are
      evaluated every T / max(I) iterations, so the arm with I steps has a value at t = T I /
      max(I));
    * ``"iterations"``: every arm at the end, after the same local computation.

    methods : {method name used in the claim: arm prefix}
    The claim's prediction ``{key: True}`` passes when every method rises then saturates, fails
    when one of them does not (its first step loses, or its returns grow, at 1 - 0.05/n over the
    claim's n = 2 x methods comparisons), and is inconclusive otherwise; ``{key: False}`` the
    reverse.
    """
    if at not in AT:
        raise ValueError(f"at must be one of {sorted(AT)}, got {at!r}")

    def judge(predicted, m: Measurement) -> CheckResult:
        from fedcomp.rates.verdict import combine, saturation_verdicts
        v = m.values
        if not v["present"]:
            return _absent(predicted, v)
        reasons, per_method, judged = [], {}, {}
        for method, per_i in v["methods"].items():
            vals = {int(i): d for i, d in per_i.items() if len(d) == len(v["seeds"])}
            if len(vals) < 3 or len(vals) < len(per_i):
                per_method[method] = None
                reasons.append(f"{method}: values at {sorted(vals)} only, all seeds needed at "
                               "3 or more values of I")
                continue
            judged[method] = vals
        # the family: two comparisons (rises, saturates) per method of the claim; one reversed
        # part fails the claim only at 1 - 0.05/family (Bonferroni, as experiment_check)
        for method, vals in judged.items():
            parts = saturation_verdicts(f"{method} {metric}", vals,
                                        family=2 * len(v["methods"]))
            verdict = combine([p.verdict for p in parts])
            per_method[method] = {"pass": True, "fail": False}.get(verdict)
            means = ", ".join(f"I={i}: {sum(d.values()) / len(d):.4f}"
                              for i, d in sorted(vals.items()))
            reasons.append(f"{method} ({means}): " + "; ".join(p.reason for p in parts))
        held = list(per_method.values())
        measured = (False if any(h is False for h in held) else
                    True if held and all(h is True for h in held) else None)
        verdict = ("inconclusive" if measured is None else
                   "pass" if measured == bool(predicted[key]) else "fail")
        detail = "; ".join(reasons)
        if v["problems"]:
            detail += "; " + "; ".join(v["problems"])
        detail += (f"; compared {AT[v['at']]}; budget: {v['budget']}; the paper: "
                   f"{v['paper_budget']}")
        if v.get("note"):
            detail += f"; {v['note']}"
        return CheckResult(verdict, predicted, {"rises then saturates": measured,
                                                "per method": per_method}, detail)

    measure = Measure(_measure_saturation, experiment, metric, methods, at, paper_budget, note,
                      name=f"stored[{experiment}, I sweep at equal {at}]", by_profile=False,
                      synthetic=functools.partial(_synthetic_saturation, methods, at))
    return Check(measure, judge, lambda pred: [{**pred, key: not pred[key]}])


def _synthetic_saturation(methods, at, predicted=None, seeds=(0, 1, 2)) -> Measurement:
    """A measurement in which every method rises then saturates by a wide margin (0.9 - 0.1 / I,
    seed noise 1e-3), for the mutation tests."""
    per = {str(i): {s: 0.9 - 0.1 / i + 1e-3 * math.sin(s + i) for s in seeds}
           for i in (1, 2, 4, 8, 16)}
    return Measurement(values={"experiment": "synthetic", "present": True, "at": at,
                               "methods": {m: per for m in methods}, "problems": [],
                               "seeds": list(seeds), "budget": "synthetic",
                               "paper_budget": "synthetic", "command": "none", "note": ""})


def _measure_joint(measures, profile, out_dir) -> Measurement:
    ms = [m(profile, out_dir) for m in measures]
    return Measurement(values={"parts": [m.values for m in ms]},
                       figures=[f for m in ms for f in m.figures],
                       detail="; ".join(m.detail for m in ms))


def _synthetic_joint(measures, predicted) -> Measurement:
    return Measurement(values={"parts": [m.synthetic(predicted).values for m in measures]})


def joint_check(*checks: Check) -> Check:
    """One claim made of several :func:`experiment_check` checks, each judging its own key of
    the prediction (e.g. huang.fig2's tau ordering and gamma ordering): fail if one part fails,
    pass if all pass, else inconclusive; its wrong predictions are every part's. A reversed pair
    fails a part at the claim's family level: 1 - 0.05/n, n the comparisons of all the parts."""
    from fedcomp.rates.verdict import combine

    def judge(predicted, m: Measurement) -> CheckResult:
        ms = [Measurement(values=v) for v in m.values["parts"]]
        # one family for the claim: a fail of any part fails it, so a reversed pair must hold
        # at the level of all the parts' comparisons together (Bonferroni over the claim)
        family = sum(c.judge.comparisons(predicted, mi) for c, mi in zip(checks, ms))
        rs = [c.judge(predicted, mi, family=family) for c, mi in zip(checks, ms)]
        return CheckResult(combine([r.verdict for r in rs]), predicted,
                           [r.measured for r in rs],
                           " || ".join(f"part {i + 1} ({r.verdict}): {r.detail}"
                                       for i, r in enumerate(rs)),
                           panels={k: pv for r in rs for k, pv in r.panels.items()})

    parts = tuple(c.measure for c in checks)
    measure = Measure(_measure_joint, parts,
                      name=" + ".join(c.measure.__qualname__ for c in checks),
                      by_profile=any(getattr(c.measure, "by_profile", True) for c in checks),
                      synthetic=functools.partial(_synthetic_joint, parts))
    return Check(measure, judge, lambda pred: [w for c in checks for w in c.wrong(pred)])
