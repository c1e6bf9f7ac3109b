"""``from dri import ...``: the public API, light to import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dri


def test_every_public_name_resolves():
    for name in dri.__all__:
        assert getattr(dri, name) is not None, name
    assert dri.compare.__module__ == "dri.metrics.scores"


def test_unknown_names_are_attribute_errors():
    with pytest.raises(AttributeError, match="no_such_name"):
        dri.__getattr__("no_such_name")


def test_import_loads_neither_spacy_nor_prefect():
    code = "import sys, dri, dri.settings; print(sorted({'spacy', 'prefect', 'nltk'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
