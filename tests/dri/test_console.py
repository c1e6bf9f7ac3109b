"""dri.console: the console script's entry point."""

from __future__ import annotations

import importlib.abc
import sys

import pytest

from dri import console


class _InterruptedImport(importlib.abc.MetaPathFinder):
    """Ctrl-C while ``dri.cli`` is imported, as in a command's first tenth of a second."""

    def find_spec(self, name, path=None, target=None):
        if name == "dri.cli":
            raise KeyboardInterrupt
        return None


def test_an_interrupt_while_the_command_is_imported_is_one_line(monkeypatch, capsys) -> None:
    # The script pip writes imported dri.cli before calling it: a Ctrl-C then was a traceback.
    monkeypatch.delitem(sys.modules, "dri.cli", raising=False)  # imported or not, by the tests before
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport(), *sys.meta_path])
    assert console.main() == 130
    assert capsys.readouterr().err == "error: interrupted; nothing was done, run the same command again\n"


def test_the_entry_point_runs_the_command(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["dri", "--help"])
    with pytest.raises(SystemExit) as done:
        console.main()
    assert done.value.code == 0 and capsys.readouterr().out.startswith("usage: dri ")
