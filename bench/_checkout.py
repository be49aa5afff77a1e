"""Which fedcomp a bench script measures: the checkout the script is in, unless PYTHONPATH is set,
in which case PYTHONPATH's (so that one script can time two worktrees of an A/B:
``PYTHONPATH=WORKTREE python bench/X.py``). Each bench script imports this module before fedcomp;
they used to put their own checkout first on sys.path, which silently overrode PYTHONPATH and made
such an A/B time one checkout twice. The folder measured is printed on stderr: a PYTHONPATH that
does not hold fedcomp leaves the installed one, which may be another checkout."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, ROOT)
_spec = importlib.util.find_spec("fedcomp")
print(f"[bench] fedcomp from {os.path.dirname(os.path.dirname(_spec.origin)) if _spec else None}",
      file=sys.stderr)
