"""Entry point for ``python -m planeshift``."""

from planeshift.cli import main

raise SystemExit(main())
