"""spaCy imported without its command line.

``spacy/__init__.py`` re-exports ``spacy.cli.info.info``, and importing that
one module runs ``spacy/cli/__init__.py``: every spaCy command, typer, the
project and download machinery. That is about 0.2 s of CPU (a quarter of
spaCy's import) in every process that parses, although no dri process runs
a spaCy command: the first result, ``dri compare``, the demo's processes and
every pool worker pay it.

:func:`import_spacy` imports spaCy with a stand-in for that one module in
``sys.modules``, and removes the stand-in as soon as spaCy is imported, so
a later ``import spacy.cli`` (``python -m spacy``, a user's own code) loads
the real commands. ``spacy.info`` keeps working: the stand-in's function
imports the real one when it is called.

Loading a model then asks spaCy's registries (``catalogue``) for their
functions about 120 times, srsly's msgpack decoders once per weight file,
and each ask filters every entry point of every installed package
(``importlib.metadata``'s list, read once when ``catalogue`` is imported):
0.08 s of CPU a load. :func:`import_spacy` replaces that list with the same
entry points grouped by name once (a dict of lists, the form ``catalogue``
reads for the ``importlib_metadata`` of older Pythons), so each ask is one
dictionary lookup with the same answer.

An interrupt (Ctrl-C, or a signal a command turns into one) that arrives
during spaCy's import is raised when the import ends: srsly imports
``_ruamel_yaml`` under a bare ``except:``, which caught the
``KeyboardInterrupt`` of a Ctrl-C that came then, and the command ran on
to the end as if nothing had been pressed.

Example::

    >>> spacy = import_spacy()
    >>> callable(spacy.load)
    True
"""

from __future__ import annotations

import sys
import threading
import types
from typing import Any

from dri.signals import signals_held

__all__ = ["import_spacy"]

_INFO = "spacy.cli.info"
_LOCK = threading.Lock()


def _info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``, imported from spaCy's command line when first called."""
    from spacy.cli.info import info

    return info(*args, **kwargs)


def import_spacy() -> types.ModuleType:
    """The ``spacy`` module, imported (once) without ``spacy.cli`` (module docstring)."""
    with _LOCK:  # one stand-in at a time; a second thread waits for the first import
        if "spacy" not in sys.modules:
            stand_in = types.ModuleType(_INFO)
            stand_in.info = _info  # type: ignore[attr-defined]
            sys.modules[_INFO] = stand_in
            try:
                with signals_held():
                    import spacy
            finally:
                if sys.modules.get(_INFO) is stand_in:
                    del sys.modules[_INFO]
        # Also when spaCy came in another way (a user's own import): the models load alike.
        _group_entry_points()
    import spacy  # a module another thread is importing is waited for

    return spacy


def _group_entry_points() -> None:
    """catalogue's entry points grouped by group name, once (module docstring)."""
    import catalogue  # type: ignore[import-untyped]

    listed = catalogue.AVAILABLE_ENTRY_POINTS
    if not hasattr(listed, "select"):  # a plain dict: grouped already
        return
    catalogue.AVAILABLE_ENTRY_POINTS = {group: list(listed.select(group=group)) for group in listed.groups}
