"""``fedcomp neural list [--json]`` and ``fedcomp neural run NAME [--device cpu|cuda|auto]
[--smoke] [--json] [--out DIR]`` (the public API, README "Using it"), plus ``--iterations``,
``--seeds`` (default 3), ``--seed`` (the first), ``--data-dir``,
``--eval-every`` and ``--arm`` (repeatable) to pick a run's length, seed, data folder, evaluation
spacing and arms; ``fedcomp neural report [--root DIR] [--docs FILE]`` prints the stored runs as
Markdown or writes them into FILE (:mod:`fedcomp.neural.report`)."""
from __future__ import annotations

import json
import sys


def _list(args):
    from fedcomp.neural import experiments as E
    rows = [E.get(n).describe() for n in E.names()]
    if args.json:
        print(json.dumps({"experiments": rows}, indent=2))
        return 0
    w = max(len(r["name"]) for r in rows)
    print(f"{'experiment':<{w}}  {'data needs':<62}  paper")
    for r in rows:
        print(f"{r['name']:<{w}}  {r['data_needs']:<62}  {r['paper']}")
    print("\n--smoke runs any of them on tiny synthetic data (no data package); the neural "
          "backend needs torch: pip install 'fedcomp[neural]'")
    return 0


def _run(args):
    from fedcomp.neural import experiments as E
    from fedcomp.neural.data import DataNotFound
    if args.out is not None:  # before the work (and named as the option the user gave)
        from fedcomp._validate import output_dir
        output_dir("--out", args.out)
    try:
        res = E.run_experiment(args.name, device=args.device, smoke=args.smoke, out=args.out,
                               iterations=args.iterations, seed=args.seed,
                               data_dir=args.data_dir, progress=not args.json,
                               arms=args.arm, eval_every=args.eval_every, seeds=args.seeds)
    except (DataNotFound, ImportError) as exc:
        print(f"fedcomp: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{res['experiment']} on {res['device']}: {res['rounds']} rounds, seeds "
              f"{res['seeds']}, {res['ran']} runs ({res['resumed']} already stored), "
              f"{res['seconds']:.1f} s; final values, mean over seeds [95 % interval]:")
        for k, v in res["metrics"].items():
            iv = res["intervals"].get(k)
            band = f" [{iv[0]:.4f}, {iv[1]:.4f}]" if iv and iv[2] > 1 else ""
            print(f"  {k:<40} {v:.4f}{band}")
        for arm, at in res["diverged"].items():
            runs = ", ".join(f"seed {s} at iteration {t}" for s, t in at.items())
            left = ("no final values" if len(at) == len(res["seeds"])
                    else "its means above leave these seeds out")
            print(f"  {arm + ':':<40} diverged ({runs}); {left}")
        if args.out:
            print(f"store, table and figure in {args.out}")
    return 0


def _report(args):
    from pathlib import Path

    from fedcomp.neural import report as R
    command = "fedcomp neural report" + (f" --docs {args.docs}" if args.docs else "") \
        + (f" --root {args.root}" if args.root else "")
    if not args.docs:
        print(R.markdown(args.root, command=command), end="")
        return 0
    from fedcomp._validate import output_dir, output_file
    output_file("--docs", args.docs)
    output_dir("--docs figures folder", Path(args.docs).parent / "figures" / "neural")
    R.update_docs(args.docs, args.root, command)
    print(f"wrote the block between the markers of {args.docs} and its figures in "
          f"{Path(args.docs).parent / 'figures' / 'neural'}")
    return 0


def add_cli(sub) -> None:
    p = sub.add_parser("neural", help="PyTorch backend: the papers' neural experiments")
    nsub = p.add_subparsers(dest="neural_command", metavar="{list,run,report}")
    pl = nsub.add_parser("list", help="the experiments and their data needs")
    pl.add_argument("--json", action="store_true")
    pl.set_defaults(func=_list)
    pr = nsub.add_parser("run", help="run one experiment")
    pr.add_argument("name")
    pr.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto")
    pr.add_argument("--smoke", action="store_true", help="seconds-long run on tiny synthetic data")
    pr.add_argument("--json", action="store_true")
    pr.add_argument("--out", default=None, help="folder for the Parquet table and the figure")
    pr.add_argument("--iterations", type=int, default=None, help="T (default: the experiment's)")
    pr.add_argument("--seed", type=int, default=0, help="first seed")
    pr.add_argument("--seeds", type=int, default=3,
                    help="number of seeds (seed, seed+1, ...; default 3): each builds its own "
                         "split, initialisation and draws; summaries give 95 %% intervals")
    pr.add_argument("--eval-every", type=int, default=None,
                    help="iterations between test evaluations (default: every round)")
    pr.add_argument("--data-dir", default=None, help="data folder (Omniglot, CIFAR, overrides)")
    pr.add_argument("--arm", action="append", default=None,
                    help="run only this arm (repeatable), e.g. localscgdam/p=4")
    pr.set_defaults(func=_run)
    pp = nsub.add_parser("report", help="the stored runs as Markdown (docs/neural.md's block)")
    pp.add_argument("--root", default=None,
                    help="folder of the experiment folders DIR/NAME (default: results/neural, "
                         "or $FEDCOMP_NEURAL_RESULTS)")
    pp.add_argument("--docs", default=None, metavar="FILE",
                    help="write the report into FILE between its markers (appended when absent) "
                         "and the figures into FILE's folder/figures/neural/")
    pp.set_defaults(func=_report)
