"""One style for every figure: a colour and marker per algorithm, labelled axes, the paper and
claim in the title, the verdict in the corner, exact zeros drawn as a marked floor.

Figures are built from data passed in (tables or dicts); no module here computes a result.
"""
from __future__ import annotations

import functools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: one colour and marker per algorithm, the same in every figure
ALGORITHMS = {
    "fedavg-case1": ("#d62728", "o", "FedAvg Case I"),
    "fedavg-case2": ("#ff7f0e", "s", "FedAvg Case II"),
    "fedavg-modified": ("#1f77b4", "^", "modified FedAvg (y every iteration)"),
    "feddro": ("#2ca02c", "D", "FedDRO"),
    "feddro-literal": ("#98df8a", "d", "FedDRO, (8) read literally"),
    "feddro-independent": ("#c51b7d", "h", "FedDRO, (7) on an independent sample"),
    "ds-feddro": ("#9467bd", "v", "DS-FedDRO"),
    "fcsg": ("#8c564b", "o", "FCSG"),
    "fcsg-m": ("#e377c2", "s", "FCSG-M"),
    "acc-fcsg-m": ("#7f7f7f", "^", "Acc-FCSG-M"),
    "localscgdam": ("#bcbd22", "D", "LocalSCGDAM"),
    "comfedl": ("#17becf", "o", "ComFedL"),
    # the baselines (dark shades of matplotlib's tab20b, CoDA tab20c's blue: none a tab10
    # colour above, CoDA's hue apart from FCSG's and LocalSGDM's browns, beside which it is drawn)
    "local-scgd": ("#393b79", "x", "Local-SCGD"),
    "local-scgdm": ("#637939", "P", "Local-SCGDM"),
    "coda": ("#3182bd", "v", "CoDA"),
    "localsgdam": ("#7b4173", "<", "LocalSGDAM"),
    "localsgdm": ("#8c6d31", ">", "LocalSGDM"),
    "fedavg": ("#000000", "s", "FedAvg"),
    "q-fedavg": ("#ad494a", "^", "q-FedAvg"),
    "drfl": ("#5254a3", "D", "DRFL (DRFA)"),
    "mbsgd": ("#8ca252", "x", "minibatch SGD"),
}
#: line styles of the arms of one algorithm in one figure (its settings), in order
ARM_LINESTYLES = ("-", "--", ":", "-.")
#: colours for algorithms outside ALGORITHMS (a user's), none of them one of ALGORITHMS'
RESERVE_COLOURS = ("#e7ba52", "#ce6dbd", "#6b6ecf", "#b5cf6b", "#d6616b", "#9c9ede", "#bd9e39",
                   "#a55194")
VERDICT_COLOURS = {"pass": "#2ca02c", "fail": "#d62728", "inconclusive": "#b8860b",
                   "reproduced": "#2ca02c", "not-reproduced": "#d62728"}
#: values below this are zero to machine precision: never plotted as data on a log axis
EXACT_ZERO = 1e-13
#: gid of the artists that draw exact zeros on a marked floor (the only ones allowed below
#: EXACT_ZERO on a log axis)
ZERO_GID = "exact-zero"
#: resolution of the PNGs :func:`save` writes
DPI = 120


def colour(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[0]


def wrap(text: str, width: int = 68) -> str:
    """`text` broken into lines of at most `width` characters (its own line breaks kept), so a
    title never runs off its figure."""
    import textwrap
    return "\n".join(line for part in text.split("\n")
                     for line in (textwrap.wrap(part, width) or [""])) if text else text


def algorithm_key(name: str) -> str | None:
    """The ALGORITHMS key a method's display name stands for ("LocalSCGDAM", "CODA+" (run as
    CoDA), "Local-SCGD": case, and a trailing "+", ignored), or None."""
    n = name.strip().lower().rstrip("+")
    if n in ALGORITHMS:
        return n
    return next((k for k, (_, _, lab) in ALGORITHMS.items() if lab.lower() == n), None)


def method_colours(names) -> dict:
    """{name: (colour, marker)} for methods named as the papers name them, in one figure: an
    algorithm of ALGORITHMS in its own colour and marker, so a method has one colour in every
    panel of every figure; another name (a setting: "5-shot") in a reserve colour chosen from the
    name itself (the same in every figure), the next free one if another name of the figure
    already has it."""
    import zlib
    out, used = {}, set()
    for name in names:
        key = algorithm_key(name)
        if key is not None:
            out[name] = (colour(key), marker(key))
            used.add(out[name][0])
    for name in names:
        if name in out:
            continue
        start = zlib.crc32(name.encode())
        for i in range(len(RESERVE_COLOURS)):
            c = RESERVE_COLOURS[(start + i) % len(RESERVE_COLOURS)]
            if c not in used:
                break
        out[name] = (c, "o")
        used.add(c)
    return out


def arm_styles(arm_algorithms: dict) -> dict:
    """{arm: {"color", "linestyle"}} for the arms of one figure, given {arm: algorithm} in the
    figure's order: every arm of an algorithm in the algorithm's colour (one colour per
    algorithm across every figure), its settings told apart by line style; an algorithm with
    more arms than line styles (a sweep) draws them solid in shades of its colour, light to
    dark. Arms of different algorithms never share a colour (algorithms without one of their own
    take the next of RESERVE_COLOURS; beyond their 8, colours repeat)."""
    from matplotlib.colors import to_rgb
    by_alg: dict = {}
    for arm, alg in arm_algorithms.items():
        by_alg.setdefault(alg, []).append(arm)
    out = {}
    spare = iter(RESERVE_COLOURS * (1 + len(by_alg) // len(RESERVE_COLOURS)))
    for alg, arms in by_alg.items():
        base = colour(alg) if alg in ALGORITHMS else next(spare)
        if len(arms) <= len(ARM_LINESTYLES):
            for arm, ls in zip(arms, ARM_LINESTYLES):
                out[arm] = {"color": base, "linestyle": ls}
            continue
        rgb = to_rgb(base)
        for i, arm in enumerate(arms):   # 45 % white for the first, the colour itself last
            w = 0.45 * (1 - i / (len(arms) - 1))
            out[arm] = {"color": tuple(c + (1 - c) * w for c in rgb), "linestyle": "-"}
    return out


def marker(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[1]


def label(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[2]


#: height of one badge line, inches (the strip added above a figure's content)
BADGE_LINE = 0.3
#: gid of every badge Text (its text is the verdict; "verdict-badge:<claim id>" when a figure is
#: the evidence of several claims), and the PNG text key :func:`save` writes them under
BADGE_GID = "verdict-badge"
PLOT_KEY = "fedcomp-plot-key"
BADGE_KEY = "fedcomp-verdicts"


def verdict_badge(fig, verdicts) -> None:
    """The verdict in the top-right corner of `fig`, in a strip added above its content (the
    axes, titles and legends keep their places relative to each other, so a badge never covers
    data). `verdicts`: one verdict, or {claim id: verdict} for a figure that is the evidence of
    several claims: one badge per claim, the id beside it. Each badge is a Text whose text is
    the verdict (gid :data:`BADGE_GID`, with ":<claim id>" for the per-claim ones), coloured by
    its first word ("fail through X" is a fail: fedcomp.report.badge_label)."""
    if not verdicts:
        return
    items = list(verdicts.items()) if isinstance(verdicts, dict) else [(None, verdicts)]
    w, h = fig.get_size_inches()
    total = h + BADGE_LINE * len(items)
    scale = h / total
    fig.set_size_inches(w, total)
    for ax in fig.axes:
        x0, y0, bw, bh = ax.get_position().bounds
        ax.set_position([x0, y0 * scale, bw, bh * scale])
    texts = {id(t): t for t in [*fig.texts, getattr(fig, "_suptitle", None)] if t is not None}
    for t in texts.values():    # the suptitle is among fig.texts in some matplotlib versions
        t.set_y(t.get_position()[1] * scale)
    renderer = fig.canvas.get_renderer()
    for i, (claim, verdict) in enumerate(items):
        y = 1.0 - (i + 0.5) * BADGE_LINE / total
        badge = fig.text(0.99, y, verdict, ha="right", va="center", fontsize=9,
                         fontweight="bold", color="white",
                         gid=BADGE_GID if claim is None else f"{BADGE_GID}:{claim}",
                         bbox={"boxstyle": "round", "fc": badge_colour(verdict), "ec": "none"})
        if claim is not None:
            left = badge.get_window_extent(renderer).x0 / fig.dpi / w
            fig.text(left - 0.015, y, claim, ha="right", va="center", fontsize=8)


def badge_colour(label) -> str:
    """The colour of a badge: its verdict's, the first word of its text ("fail through X",
    "inconclusive; this panel: pass"); grey for another text."""
    import re
    m = re.match(r"[a-z-]+", str(label))
    return VERDICT_COLOURS.get(m.group(0) if m else "", "#555555")


def badges(fig) -> dict:
    """{claim id or None: verdict} of the badges on `fig` (what :func:`verdict_badge` drew)."""
    out = {}
    for t in fig.texts:
        gid = t.get_gid() or ""
        if gid == BADGE_GID or gid.startswith(BADGE_GID + ":"):
            out[gid.partition(":")[2] or None] = t.get_text()
    return out


def split_zeros(xs, ys):
    """(x, y) pairs with y a number >= EXACT_ZERO, and the x where y is an exact zero."""
    data, zeros = ([], []), []
    for x, y in zip(xs, ys):
        if y is None:
            continue
        if y < EXACT_ZERO:
            zeros.append(x)
        else:
            data[0].append(x)
            data[1].append(y)
    return data, zeros


def zero_floor(ax, xs, alg: str, floor: float) -> None:
    """Exact zeros of `alg` at `xs`, drawn on the floor line with a downward marker."""
    if xs:
        ax.plot(xs, [floor] * len(xs), linestyle="none", marker="v", color=colour(alg),
                mfc="none", ms=6, gid=ZERO_GID)


def floor_line(ax, floor: float) -> None:
    ax.axhline(floor, color="0.6", lw=0.8, ls=":", gid=ZERO_GID)
    ax.text(0.01, floor, " 0 to machine precision", transform=ax.get_yaxis_transform(),
            va="bottom", ha="left", fontsize=7, color="0.4")


def plot_key(plot, verdicts) -> str | None:
    """A digest of everything a :class:`~fedcomp.figures.Plot` draws from: its file name, the
    verdicts in its corner, its drawing function (name and the source of the module that defines
    it, and of every fedcomp.figures module loaded), the data handed to it (pickled) and
    matplotlib's version. None when the data cannot be pickled (the figure is then always drawn)."""
    import hashlib
    import inspect
    import io
    import json
    import pickle
    import sys

    import matplotlib
    fn = plot.draw
    args, kw = (), {}
    if isinstance(fn, functools.partial):
        fn, args, kw = fn.func, fn.args, fn.keywords
    try:
        # no memo ("fast"): the bytes depend on the values only, not on which of them happen to
        # be one object (data sent back from a worker process shares other objects than data
        # made here)
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=4)
        pickler.fast = True
        pickler.dump((args, sorted(kw.items())))
        data = buf.getvalue()
    except Exception:   # noqa: BLE001 -- a lambda, an open handle or a cycle in the data: no key
        return None
    h = hashlib.sha256(data)
    h.update(json.dumps([plot.name, verdicts, getattr(fn, "__module__", ""),
                         getattr(fn, "__qualname__", repr(fn)), matplotlib.__version__],
                        sort_keys=True, default=str).encode())
    # every module of this package (whether or not this process has imported it yet, so that
    # the key is the same in any process), and the drawing function's own
    mods = sorted({getattr(fn, "__module__", None) or ""} | set(_figure_modules()) - {""})
    for mod in mods:
        if mod not in _SOURCES:
            try:
                _SOURCES[mod] = hashlib.sha256(
                    inspect.getsource(sys.modules[mod]).encode()).hexdigest()
            except (KeyError, OSError, TypeError):
                return None
        h.update(_SOURCES[mod].encode())
    return h.hexdigest()


_SOURCES: dict = {}   # module -> digest of its source, read once per process


@functools.lru_cache(maxsize=1)
def _figure_modules() -> list:
    """The names of the modules of fedcomp.figures (from its files), imported here so that
    :func:`plot_key` hashes their sources."""
    import importlib
    names = sorted(f"{__package__}.{p.stem}" for p in Path(__file__).parent.glob("*.py")
                   if p.stem != "__init__")
    for name in names:
        importlib.import_module(name)
    return [__package__] + names


def saved_key(path) -> str | None:
    """The :func:`plot_key` a PNG written by :func:`save` records, or None."""
    from PIL import Image
    try:
        with Image.open(path) as im:
            return im.text.get(PLOT_KEY) if hasattr(im, "text") else None
    except (OSError, ValueError):
        return None


def at_saved_dpi():
    """A context in which new figures have the resolution :func:`save` writes (rcParams
    ``figure.dpi`` = :data:`DPI`): the text extents a layout (tight_layout) measures are then the
    ones the saved drawing needs, taken from matplotlib's caches instead of measured again at a
    second resolution (6 to 10 % of the verify report's drawing time, measured on its 142
    figures), and the layout is computed at the resolution of the saved image."""
    import matplotlib
    return matplotlib.rc_context({"figure.dpi": DPI})


class _SharedMathText:
    """A renderer's math-text parser with one cache for the whole process.

    matplotlib caches parsed math text (tick labels such as ``10^{-2}``, axis labels with
    formulas) per renderer, that is per figure, 50 entries at most: the verify report's 142
    figures parsed their 58 distinct strings 798 times (a third of their text measuring, about
    5 s of CPU). This object wraps one such parser and keeps what it returns, keyed as
    matplotlib keys its own cache (the string, the resolution, a copy of the font properties,
    antialiasing and hinting), plus the ``mathtext.*`` settings, which matplotlib reads while
    parsing and a process may change between figures. The results are the renderer's own
    (read-only layouts, already shared by matplotlib's cache between calls)."""

    _LIMIT = 4096

    def __init__(self, inner):
        self.inner = inner
        self.memo: dict = {}
        self.keys = tuple(sorted(k for k in matplotlib.rcParams if k.startswith("mathtext.")))

    def parse(self, s, dpi=72, prop=None, *, antialiased=None):
        rc = matplotlib.rcParams
        key = (s, dpi, prop.copy() if prop is not None else None,
               rc["text.antialiased"] if antialiased is None else bool(antialiased),
               rc["text.hinting"], rc["text.hinting_factor"], tuple(rc[k] for k in self.keys))
        hit = self.memo.get(key)
        if hit is None:
            if len(self.memo) >= self._LIMIT:
                self.memo.clear()
            hit = self.memo[key] = self.inner.parse(s, dpi, prop, antialiased=antialiased)
        return hit


_SHARED_MATHTEXT: dict = {}


def _share_mathtext(fig) -> None:
    """Give `fig`'s Agg renderer the process's shared math-text parser (:class:`_SharedMathText`)
    for the layout and the saved drawing; other canvases are left as they are."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.mathtext import MathTextParser
    if not isinstance(fig.canvas, FigureCanvasAgg):
        return
    renderer = fig.canvas.get_renderer()
    inner = getattr(renderer, "mathtext_parser", None)
    if isinstance(inner, MathTextParser):
        shared = _SHARED_MATHTEXT.get(type(renderer))
        if shared is None:
            shared = _SHARED_MATHTEXT[type(renderer)] = _SharedMathText(inner)
        renderer.mathtext_parser = shared


def tight_layout(fig, **kwargs) -> None:
    """``fig.tight_layout(**kwargs)``, measuring math text with the shared parser."""
    _share_mathtext(fig)
    fig.tight_layout(**kwargs)


def save(fig, path, verdicts: dict | None = None, key: str | None = None) -> Path:
    """Write a figure atomically (temporary file, then rename) and close it. `verdicts` ({claim
    id: verdict}, those its badges show) is stored in the PNG's text chunk :data:`BADGE_KEY`, so
    that a figure file says which claims' verdicts it carries; `key` (:func:`plot_key`) in
    :data:`PLOT_KEY`, so that a rerun with the same data and verdicts keeps the file instead of
    drawing it again."""
    import json
    import os
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    meta = None
    if verdicts is not None and path.suffix.lower() == ".png":
        meta = {BADGE_KEY: json.dumps(verdicts, sort_keys=True)}
        if key is not None:
            meta[PLOT_KEY] = key
    try:
        # the format from the final name: the temporary name's suffix would be 'tmp-<pid>'
        # for a path without one
        fmt = path.suffix.lower().lstrip(".") or plt.rcParams["savefig.format"]
        from matplotlib.layout_engine import PlaceHolderLayoutEngine
        if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
            # what fig.tight_layout() leaves behind: an engine that does nothing, but for which
            # savefig draws the whole figure once more before drawing it (the same pixels
            # without it; a quarter of the time of saving)
            fig.set_layout_engine(None)
        if fig.dpi == DPI:   # the renderer savefig will use (it makes a new one at another dpi)
            _share_mathtext(fig)
        fig.savefig(tmp, dpi=DPI, metadata=meta, format=fmt)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if tmp.exists():
            tmp.unlink()
    return path


def saved_verdicts(path) -> dict | None:
    """The {claim id: verdict} a PNG written by :func:`save` records, or None."""
    import json

    from PIL import Image
    with Image.open(path) as im:
        raw = im.text.get(BADGE_KEY) if hasattr(im, "text") else None
    return None if raw is None else json.loads(raw)
