"""``python -m fedcomp`` is the ``fedcomp`` command."""
import sys

from fedcomp.cli import main

sys.exit(main())
