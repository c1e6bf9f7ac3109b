"""spaCy imported without its command line (extract/spacy_import.py), in fresh processes."""

from __future__ import annotations

import json

import pytest
from session_env import fresh_python

PROBE = """
import json, sys
from dri.extract.build import load_nlp
nlp = load_nlp()
parsed = [t.dep_ for t in nlp("The sun attracts the planet.")]
without_cli = "spacy.cli" not in sys.modules
import spacy
info = spacy.info()  # the real function, imported when called
import spacy.cli.info
print(json.dumps({
    "without_cli": without_cli, "parsed": parsed, "info": sorted(info)[:3],
    "real_module": hasattr(sys.modules["spacy.cli.info"], "info_model"),
}))
"""


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_a_parse_imports_no_spacy_command_and_spacy_info_still_works():
    got = json.loads(fresh_python(PROBE).strip().splitlines()[-1])
    assert got["without_cli"] is True
    assert "nsubj" in got["parsed"] and "dobj" in got["parsed"]
    assert got["info"] and got["real_module"] is True


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_the_verb_lemmas_import_spacy_the_same_way():
    probe = (
        "import sys; from dri.extract.verb_lemmas import _asked; "
        "print(_asked('attracted'), 'spacy' in sys.modules, 'spacy.cli' in sys.modules)"
    )
    assert fresh_python(probe).split() == ["('attract',)", "True", "False"]
