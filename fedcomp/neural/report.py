"""``fedcomp neural report``: the neural experiments' results as Markdown, built from the stored
runs only (nothing typed by hand). Needs no torch.

It reads, for every experiment of the registry (:func:`fedcomp.neural.experiments.names`, in that
order), the folder ``ROOT/NAME`` that ``fedcomp neural run NAME --seeds N --out ROOT/NAME`` writes
(:mod:`fedcomp.neural.store`; ``ROOT`` is :func:`fedcomp.neural.store.default_root`,
``results/neural``, unless given):

* ``ROOT/NAME/store/`` and ``ROOT/NAME/manifest.json`` - the runs and their budget, read with
  :func:`fedcomp.neural.store.load`;
* ``ROOT/NAME/NAME.png`` - the curves with seed bands, copied into the report's figure folder
  (redrawn from the stored table with :func:`fedcomp.neural.experiments.write_outputs` when the
  folder has none).

Each experiment becomes a section ``### NAME``: its paper; then either the command that produces
its runs and the data it needs, or the budget of the stored runs (iterations beside the paper
setup's default, seeds, device, torch version), the command that reproduced them, a table of each
arm's final value per metric (mean over seeds with its 95 % Student-t interval, or the iteration
and seed at which a run diverged) and the figure. Where the store also holds a longer budget
for some arms with every seed (:func:`fedcomp.neural.store.complete_budgets`: runs computed
elsewhere and copied in, such as the Omniglot MAML experiment's 100-iteration GPU runs), a
subsection ``#### NAME at T iterations`` gives the same for those arms, the figure redrawn as
``NAME-TT.png``.

``fedcomp neural report --docs FILE`` writes that Markdown into FILE between the markers
:data:`BEGIN` and :data:`END` (appended at the end of FILE when absent), leaving the rest of the
file as it is, and the figures into ``FILE's folder/figures/neural/``.
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

BEGIN = "<!-- BEGIN fedcomp neural report -->"
END = "<!-- END fedcomp neural report -->"
COMMAND = "fedcomp neural report --docs docs/neural.md"
HEADING = "## Stored runs (generated)"


def _repo() -> Path:
    import fedcomp
    return Path(fedcomp.__file__).resolve().parents[1]


def _shown(path: Path) -> str:
    """`path` relative to the repository when inside it (so that the report reads the same on
    every checkout), else as given."""
    p = Path(path)
    try:
        return p.resolve().relative_to(_repo()).as_posix()
    except ValueError:
        return p.as_posix()


def experiment_root(name: str, root=None) -> Path:
    """The folder of experiment `name`: ``root/name``, by default under
    :func:`fedcomp.neural.store.default_root`."""
    from fedcomp.neural.store import default_root
    return Path(root if root is not None else default_root()) / name


def _num(v: float) -> str:
    return f"{v:.4f}"


def _interval_text(iv, n_seeds: int | None = None) -> str:
    """``mean [low, high]`` with 4 decimals; one value has no interval; ``(n = k)`` is added when
    the arm's number of seeds differs from `n_seeds` (None: never)."""
    if iv.n < 2 or not (math.isfinite(iv.low) and math.isfinite(iv.high)):
        text = f"{_num(iv.mean)} (one seed, no interval)"
    else:
        text = f"{_num(iv.mean)} [{_num(iv.low)}, {_num(iv.high)}]"
    if n_seeds is not None and iv.n != n_seeds and iv.n >= 2:
        text += f" (n = {iv.n})"
    return text


def cell(stored, metric: str, arm: str) -> str:
    """The table cell of `arm` and `metric`: its final value over seeds as ``mean [low, high]``
    (:meth:`~fedcomp.neural.store.StoredExperiment.interval`), or ``diverged at t = T (seed s)``
    for the diverged seeds (grouped by t), followed by the interval of the seeds that did not diverge, if any.

    Parameters
    ----------
    stored : fedcomp.neural.store.StoredExperiment
        The experiment's stored runs.
    metric, arm : str
        Column and arm label.

    Returns
    -------
    str
        Never ``nan``: a value that is missing or not finite without a recorded divergence is
        named as such.
    """
    from fedcomp.rates.seeds import mean_interval
    if metric not in stored.table.columns:
        return "not recorded"
    n_seeds = len(stored.seeds)
    div = stored.diverged().get(arm, {})
    finals = stored.finals(metric).get(arm, {})
    if div:
        by_t: dict = {}
        for s, t in sorted(div.items()):
            by_t.setdefault(t, []).append(s)
        text = "diverged at " + ", ".join(
            f"t = {t} (seed{'s' if len(ss) > 1 else ''} {', '.join(str(s) for s in ss)})"
            for t, ss in sorted(by_t.items()))
        rest = [v for s, v in finals.items() if s not in div and math.isfinite(v)]
        if rest:
            iv = mean_interval(rest)
            others = ", ".join(str(s) for s in sorted(finals) if s not in div)
            text += f"; seeds {others}: " + _interval_text(iv)
        return text
    bad = sorted(s for s, v in finals.items() if not math.isfinite(v))
    if bad:
        return "no finite final value (seed " + ", ".join(str(s) for s in bad) + ")"
    iv = stored.interval(metric, arm)
    if isinstance(iv, str):   # the store reports a divergence we did not see above
        return iv
    return _interval_text(iv, n_seeds)


def figure(name: str, stored, figures_dir, stem=None) -> Path:
    """``figures_dir/NAME.png``: the experiment folder's ``NAME.png`` copied, or the stored table
    redrawn (:func:`fedcomp.neural.experiments.write_outputs`) when the folder has none; with
    `stem` (runs of another budget than the folder's figure shows), always redrawn, as
    ``figures_dir/STEM.png``."""
    from fedcomp.neural.experiments import get
    figures_dir = Path(figures_dir)
    figures_dir.mkdir(parents=True, exist_ok=True)
    dest = figures_dir / f"{stem or name}.png"
    src = Path(stored.path) / f"{name}.png"
    if src.is_file() and stem is None:
        if not (dest.is_file() and dest.read_bytes() == src.read_bytes()):
            shutil.copyfile(src, dest)
        return dest
    from fedcomp.neural.experiments import write_outputs
    with tempfile.TemporaryDirectory(prefix="fedcomp-neural-report-") as tmp:
        _, png = write_outputs(name, stored.table, tmp, get(name).metrics, write_store=False)
        shutil.copyfile(png, dest)
    return dest


def _link(path: Path, rel_to) -> str:
    base = Path(rel_to) if rel_to is not None else Path.cwd()
    return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()


def _budget(exp, stored) -> list[str]:
    from fedcomp.neural import store as S
    m = stored.manifest
    seeds = stored.seeds
    lines = []
    iters = m.get("iterations", "?")
    gap = (f" (the experiment's full-scale default: {exp.default_iterations})"
           if iters != exp.default_iterations else " (the experiment's full-scale default)")
    every = m.get("eval_every")
    if not every:
        # the arms' own spacing (every model round, or a sweep's fixed spacing): from the runs
        gaps = {int(d) for _, g in stored.table.groupby(["arm", "seed"])
                for d in np.diff(np.sort(g["t"].unique())) if d > 0}
        spacing = (f"every {gaps.pop()} iterations" if len(gaps) == 1 else
                   "at each arm's own spacing (every model round unless the experiment sets one)")
    lines.append(f"- iterations per run: {iters}{gap}; evaluated "
                 + (f"every {every} iterations" if every else spacing))
    seed_text = f"- seeds: {', '.join(str(s) for s in seeds)} (n = {len(seeds)})"
    if m.get("seeds") is not None and sorted(m["seeds"]) != seeds:
        seed_text += (f"; the manifest's last command ran seeds "
                      f"{', '.join(str(s) for s in m['seeds'])}")
    lines.append(seed_text)
    lines.append(f"- device: {S.describe_devices(stored.table, m.get('device', '?'))}; "
                 f"torch {m.get('torch', '?')}")
    if "device" in stored.table and stored.table["device"].nunique() > 1:
        # runs of one budget computed on several devices: which run came from which
        for dev, g in stored.table.groupby("device", sort=True):
            runs = g.groupby("arm", sort=False)["seed"].unique()
            runs = runs.reindex([a for a in stored.arms if a in runs.index])
            parts = [f"{arm} (seed{'s' if len(s) > 1 else ''} "
                     f"{', '.join(str(int(x)) for x in sorted(s))})" for arm, s in runs.items()]
            lines.append(f"  - on {dev}, {sum(len(s) for s in runs)} runs: {'; '.join(parts)}")
    if m.get("smoke"):
        lines.append("- **smoke run**: tiny synthetic stand-ins of the data and narrow models; it "
                     "checks the plumbing, not the paper's numbers")
    return lines


def section(name: str, root=None, figures_dir=None, rel_to=None) -> str:
    """The Markdown section of one experiment (see the module docstring).

    Parameters
    ----------
    name : str
        A registered experiment.
    root : path-like, optional
        Parent folder of the experiment folders (default: the store's default root).
    figures_dir : path-like, optional
        Where the figure is written as ``NAME.png``; without it the section links the experiment
        folder's ``NAME.png`` when there is one.
    rel_to : path-like, optional
        Folder the links are relative to (the Markdown file's; default: the working directory).

    Returns
    -------
    str
        The section, ending with a newline.
    """
    from fedcomp.neural.experiments import get
    from fedcomp.neural.store import complete_budgets, default_root, load, load_budget
    exp = get(name)
    folder = experiment_root(name, root)
    stored = load(name, folder)
    out = [f"### {name}", "", f"Paper: {exp.paper}.", ""]
    if stored is None:
        shown_root = _shown(Path(root) if root is not None else default_root())
        out += [f"No stored runs in `{_shown(folder)}`. To produce them:", "",
                "```", exp.command(f"{shown_root}/{name}"), "```",
                "", f"Data needed: {exp.data_needs}.", ""]
        return "\n".join(out)
    out += [f"Stored runs in `{_shown(folder)}`:", ""]
    out += _results(exp, stored, folder, figures_dir, rel_to)
    # longer runs of some arms beside the manifest's budget (computed elsewhere and copied into
    # the store): what the experiment claims judge those arms on (fedcomp.checks.stored)
    T0 = stored.manifest["iterations"]
    for (T, E), have in sorted(complete_budgets(name, folder).items()):
        if T <= T0:
            continue
        longer = load_budget(name, (T, E), have, folder)
        out += [f"#### {name} at {T} iterations", "",
                f"The arms stored at {T} iterations with every seed ({', '.join(have)}); the "
                "experiment claims compare arms at the largest budget stored for all of them:",
                ""]
        out += _results(exp, longer, folder, figures_dir, rel_to, stem=f"{name}-T{T}")
    return "\n".join(out)


def _results(exp, stored, folder, figures_dir, rel_to, stem=None) -> list[str]:
    """Budget lines, reproducing command, the table of final values and the figure of one
    budget's stored runs (:func:`section`)."""
    name = exp.name
    out = _budget(exp, stored)
    out += ["", "Reproduced by:", "", "```", stored.manifest.get("command", "?"), "```", ""]
    metrics = list(exp.metrics)
    out.append("| arm | " + " | ".join(metrics) + " |")
    out.append("|---|" + "---|" * len(metrics))
    for arm in stored.arms:
        out.append(f"| {arm} | " + " | ".join(cell(stored, m, arm) for m in metrics) + " |")
    out += ["", "Final value of each run (its last evaluation), mean over seeds [95 % Student-t "
            "interval]; a diverged run has no final value and is named with the iteration t at "
            "which it diverged.", ""]
    if figures_dir is not None:
        png = figure(name, stored, figures_dir, stem)
    else:
        png = folder / f"{stem or name}.png"
        png = png if png.is_file() else None
    if png is not None:
        out += [f"![{name}: curves, mean over seeds with 95 % bands]({_link(png, rel_to)})", ""]
    return out


def markdown(root=None, figures_dir=None, rel_to=None, command: str = COMMAND) -> str:
    """The report: a line naming `command` (the one that regenerates it), then one
    :func:`section` per registered experiment, in :func:`fedcomp.neural.experiments.names` order.

    Parameters
    ----------
    root, figures_dir, rel_to : path-like, optional
        As in :func:`section`.
    command : str
        The regenerating command named in the first line.

    Returns
    -------
    str
        Markdown ending with a newline.
    """
    from fedcomp.neural.experiments import names
    from fedcomp.neural.store import default_root
    shown_root = _shown(Path(root) if root is not None else default_root())
    head = (f"Generated by `{command}` from the stored runs in `{shown_root}/NAME` "
            "(`fedcomp neural run NAME --seeds N --out ...`); do not edit it by hand: the command "
            "rewrites it.")
    parts = [head, ""] + [section(n, root, figures_dir, rel_to) for n in names()]
    return "\n".join(parts).rstrip("\n") + "\n"


def replace_block(text: str, block: str) -> str:
    """`text` with the part between :data:`BEGIN` and :data:`END` replaced by `block` (the
    markers kept); when the markers are absent they are appended at the end of `text` under
    :data:`HEADING`."""
    body = f"{BEGIN}\n{block.rstrip(chr(10))}\n{END}"
    i = text.find(BEGIN)
    if i < 0:
        return text.rstrip("\n") + f"\n\n{HEADING}\n\n{body}\n"
    j = text.find(END, i)
    if j < 0:
        raise ValueError(f"{BEGIN!r} without {END!r}")
    return text[:i] + body + text[j + len(END):]


def update_docs(path, root=None, command: str | None = None) -> str:
    """Write the report into the Markdown file `path` between the markers (see
    :func:`replace_block`) and its figures into ``path's folder/figures/neural/``.

    Parameters
    ----------
    path : path-like
        The Markdown file (created when missing).
    root : path-like, optional
        As in :func:`section`.
    command : str, optional
        The regenerating command named in the block (default :data:`COMMAND`).

    Returns
    -------
    str
        The new text of the file.
    """
    path = Path(path)
    folder = path.parent
    block = markdown(root, folder / "figures" / "neural", folder, command or COMMAND)
    old = path.read_text() if path.exists() else ""
    new = replace_block(old, block)
    if new != old:
        path.write_text(new)
    return new
