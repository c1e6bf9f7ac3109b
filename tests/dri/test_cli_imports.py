"""A command imports what it uses: ``dri compare`` loads neither the store nor
the flows nor Prefect, and ``dri --help`` still lists every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from dri.cli import COMMAND_MODULES

#: The environment as the session started: these tests run in the background
#: (tests/background.py), beside tests that change this process's.
ENV_AT_START = dict(os.environ)

HEAVY = (
    "dri.store",
    "dri.flows.runners",
    "dri.metrics.report",
    "dri.corpora.translate",
    "prefect",
    "sklearn",
)


def _loaded_after(argv: list[str], modules: tuple[str, ...] = HEAVY) -> tuple[list[str], str]:
    code = (
        "import json, sys\n"
        "from dri import cli\n"
        "try:\n"
        f"    cli.main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps([m for m in {modules!r} if m in sys.modules]), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=ENV_AT_START, capture_output=True, text=True, check=True
    )
    return json.loads(out.stderr.strip().splitlines()[-1]), out.stdout


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_dri_compare_imports_neither_the_store_nor_the_flows():
    loaded, _ = _loaded_after(["-v", "compare", "--help"])
    assert loaded == []


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_dri_evaluate_imports_neither_prefect_nor_an_http_client():
    loaded, _ = _loaded_after(["evaluate", "analogy", "--help"], ("prefect", "sklearn", "urllib.request"))
    assert loaded == []


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_dri_help_still_lists_every_command():
    _, text = _loaded_after(["--help"])
    assert all(f"    {name} " in text for name in COMMAND_MODULES)
