# SPDX-License-Identifier: MIT
"""Opt-in alias: ``import dftracer...`` resolves to stallwatch when dftracer is absent.

With the alias installed, DFTracer-annotated code runs unchanged::

    from dftracer.python import ai, dft_fn, dftracer   # new pydftracer layout
    from dftracer.logger import ai, dft_fn, dftracer   # older layout

It is installed by :func:`install` (also exported as
``stallwatch.install_dftracer_alias``), by ``python -m stallwatch.run``, and at
interpreter start-up when ``STALLWATCH_DFTRACER_ALIAS=1`` and the package was
installed with its ``.pth`` file. A real dftracer always wins: the alias only
answers imports no other finder can satisfy.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Optional, Sequence

_PACKAGES = ("dftracer", "dftracer.python", "dftracer.logger")
_MODULES = ("dftracer.python.ai", "dftracer.python.logger", "dftracer.logger.ai")


def _populate(module: types.ModuleType) -> None:
    from stallwatch import _ai, dftracer_compat

    for name in _ai.__all__:
        setattr(module, name, getattr(_ai, name))
    for name in dftracer_compat.__all__:
        setattr(module, name, getattr(dftracer_compat, name))
    module.__stallwatch_alias__ = True  # type: ignore[attr-defined]


class _AliasLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[types.ModuleType]:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ != "dftracer":
            _populate(module)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Answers for dftracer's module names, after every other finder failed."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[types.ModuleType] = None
                  ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname not in _PACKAGES and fullname not in _MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(),
                                               is_package=fullname in _PACKAGES)


_finder = _AliasFinder()


def installed() -> bool:
    """True when the alias finder is on ``sys.meta_path``."""
    return _finder in sys.meta_path


def install() -> bool:
    """Installs the alias unless a real dftracer is importable; True when installed."""
    try:
        if installed():
            return True
        if "dftracer" in sys.modules or importlib.util.find_spec("dftracer") is not None:
            return False
        sys.meta_path.append(_finder)
        return True
    except Exception:
        return False


def uninstall() -> None:
    """Removes the alias finder (modules already imported stay)."""
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
