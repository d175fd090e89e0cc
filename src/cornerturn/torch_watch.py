"""Registers cornerturn's torch operators the moment torch is imported, when cornerturn was imported first.

Registering at the first torch tensor instead would do it inside a `torch.compile` trace when the first call is
compiled, and Dynamo refuses an import there. A finder on `sys.meta_path` sees torch's import, lets it run, then
calls `torch_ops.register()`, and leaves `sys.meta_path`; torch is never imported here.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Finds torch as the other finders do, and has its loader register cornerturn's operators once torch's own
    module has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        uninstall()
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run_torch = spec.loader.exec_module

        def exec_module(module):
            run_torch(module)
            try:
                from . import torch_ops

                torch_ops.register()
            except Exception as error:  # torch itself imported; the first torch tensor tries again and raises
                warnings.warn(f"cornerturn: torch operators not registered at torch's import: {error!r}",
                              RuntimeWarning, stacklevel=2)

        spec.loader.exec_module = exec_module
        return spec


_FINDER = _TorchFinder()


def install() -> None:
    """Watch for torch's import (idempotent; nothing to do if torch is already imported)."""
    if sys.modules.get("torch") is None and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
