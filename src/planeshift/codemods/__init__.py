"""LibCST codemods that move registration call sites onto the ADR-0120 kernels, one per module.

``migrate(config, options)`` is the library entry point: it scans, runs the selected codemods and
returns a :class:`~planeshift.codemods.model.MigrateResult`; it writes only with
``options.write`` and never prints.
"""

from __future__ import annotations

from .base import (
           REGISTRY,
           Codemod,
           Example,
           Item,
           Plan,
           all_codemods,
           codemod_by_id,
           register,
)
from .facts import MigrateOptions
from .model import MigrateResult
from .run import migrate

__all__ = ["REGISTRY", "Codemod", "Example", "Item", "MigrateOptions", "MigrateResult", "Plan",
           "all_codemods", "codemod_by_id", "migrate", "register"]
