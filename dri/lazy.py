"""A package's public names, each imported from its module on first use (PEP 562).

``import dri`` and ``import dri.evaluate`` stay light (no spaCy, no Prefect):
their ``__getattr__`` and ``__dir__`` come from :func:`lazy_exports`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose name ``n`` comes from
    the module ``exports[n]`` (relative to ``package`` if it starts with a dot).
    A name is imported once: it is then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value  # found at once next time
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
