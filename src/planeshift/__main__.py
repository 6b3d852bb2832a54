"""Entry point for ``python -m planeshift``."""

import os
import sys

# `python -m` puts the current folder first on sys.path; planeshift runs inside the tree it
# reads, and a `yaml.py` or `click.py` there must not be what its own imports run
if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from planeshift.cli import run

run()
