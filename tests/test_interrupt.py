"""Ctrl-C during `fedcomp verify` stops it (exit 130) and never overwrites the last complete
report, also when the interrupt arrives inside compiled (numba) code."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import fedcomp
    from fedcomp import checks
    from fedcomp.checks import Check, CheckResult, Claim, Measurement

    def measure(profile, out_dir):
        p = fedcomp.problems.LinearQuadratic.random(4, 6, 3, heterogeneity=0.5, seed=1,
                                                   noise=0.1)
        print("measuring", flush=True)
        for i in range(10 ** 6):  # long numba runs: the interrupt lands in compiled code
            fedcomp.simulate(p, "feddro", iterations=200_000, eta=0.01, local_steps=2,
                             beta=0.1, seed=i, record_every=200_000)
        return Measurement(values={})

    def judge(predicted, m):
        return CheckResult("pass", predicted, None, "never reached")

    def quick(profile, out_dir):
        return Measurement(values={})

    fast = Claim(id="fedcomp.test-fast", paper="fedcomp", location="test", statement="fast",
                 kind="rate", predicted={"T": -0.5}, check=Check(quick, judge))
    slow = Claim(id="fedcomp.test-slow", paper="fedcomp", location="test", statement="slow",
                 kind="rate", predicted={"T": -0.5}, check=Check(measure, judge))
    reg = dict(checks._registry()); reg[slow.id] = slow; reg[fast.id] = fast
    checks._CACHE = checks._validate(list(reg.values()))
    from fedcomp.cli import main
    sys.exit(main(["verify", "--claim", fast.id, slow.id,
                   "--out", sys.argv[1]]))
""")


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_sigint_stops_verify_and_keeps_the_last_report(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.json").write_text('{"sentinel": true}')
    script = tmp_path / "slow.py"
    script.write_text(SCRIPT)
    # stderr goes to a file, not a pipe: a pipe nobody reads while we wait would fill up and
    # block the child in a write, which no signal can end
    err_path = tmp_path / "stderr.txt"
    err_file = open(err_path, "w")
    # a cold kernel cache: the interrupt then lands while numba compiles, whose compiler
    # swallows the KeyboardInterrupt (fedcomp._interrupt keeps it)
    env = {**os.environ, "FEDCOMP_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, str(script), str(out)], stdout=subprocess.PIPE,
                            stderr=err_file, text=True, env=env)
    deadline = time.time() + 120
    line = ""
    while time.time() < deadline and "measuring" not in line:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
    assert "measuring" in line, err_path.read_text()
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        masks = [ln for ln in open("/proc/self/status").read().splitlines()
                 if ln.startswith(("SigBlk", "SigIgn", "SigCgt"))]
        raise AssertionError("verify did not stop within 60 s of SIGINT; its stderr ends: "
                             + err_path.read_text()[-2000:] + f"; this process's {masks}")
    finally:
        err_file.close()
    err = err_path.read_text()
    assert rc == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert json.loads((out / "report.json").read_text()) == {"sentinel": True}
    partial = json.loads((out / "report.interrupted.json").read_text())
    assert partial["interrupted"] is True
    assert [r["id"] for r in partial["claims"]] == ["fedcomp.test-fast"]


def test_an_internal_error_is_one_line_and_a_logged_traceback(monkeypatch, capsys):
    from fedcomp import cli

    def boom(args):
        raise RuntimeError("deliberately broken")
    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    args = parser.parse_args(["claims"])
    args.func = boom
    monkeypatch.setattr(parser, "parse_args", lambda argv=None: args)
    assert cli.main([]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "deliberately broken" in err[0] and "Traceback" not in err[0]
    log = err[0].rsplit("full traceback in ", 1)[1].rstrip(")")
    assert "RuntimeError" in open(log).read()


def test_an_interrupt_swallowed_downstream_still_stops_the_next_simulation():
    import signal as sg

    import fedcomp
    from fedcomp import _interrupt
    previous = _interrupt.watch()
    try:
        with pytest.raises(KeyboardInterrupt):
            _interrupt._handler(sg.SIGINT, None)     # what SIGINT runs
        # whatever caught that KeyboardInterrupt, the next simulation refuses to start
        p = fedcomp.problems.LinearQuadratic.random(2, 2, 2, seed=0)
        with pytest.raises(KeyboardInterrupt, match="earlier in this command"):
            fedcomp.simulate(p, "fedavg-case2", iterations=4)
    finally:
        _interrupt.unwatch(previous)
    assert sg.getsignal(sg.SIGINT) is previous
    fedcomp.simulate(p, "fedavg-case2", iterations=4)   # cleared: runs again


def test_measuring_workers_take_no_process_lock_for_progress_bars():
    """verify's worker processes (--jobs) draw progress bars with a thread lock: tqdm's default
    process lock is a named semaphore that a worker terminated on Ctrl-C never unregisters, and
    multiprocessing's resource tracker then warned of "leaked semaphore objects" at exit."""
    code = ("from fedcomp.report import _worker_init; _worker_init()\n"
            "import tqdm.std as S\n"
            "list(S.tqdm(range(3), disable=False))\n"
            "print(hasattr(S.TqdmDefaultWriteLock, 'mp_lock'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    # without it, the same bar creates the process lock (the check above is not vacuous)
    out = subprocess.run([sys.executable, "-c", code.replace(
        "from fedcomp.report import _worker_init; _worker_init()\n", "")],
        capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr
