"""spaCy imported without its command line, and its registries asked by group (extract/spacy_import.py)."""

from __future__ import annotations

import json

import pytest
from session_env import fresh_python

from dri.extract.spacy_import import import_spacy

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


def test_catalogue_entry_points_are_grouped_with_the_same_members():
    import importlib.metadata

    import catalogue

    import_spacy()
    grouped = catalogue.AVAILABLE_ENTRY_POINTS
    assert type(grouped) is dict  # no select(): catalogue asks it by group name
    every = importlib.metadata.entry_points()
    assert set(grouped) == set(every.groups)
    for group in every.groups:
        assert grouped[group] == list(every.select(group=group))
    # A registry's ask (spaCy's are created at its import) reads the grouped table.
    console = catalogue.Registry(("console",), entry_points=True)
    console.entry_point_namespace = "console_scripts"
    assert console._get_entry_points() == grouped["console_scripts"] != []


INTERRUPTED_IMPORT = """
import os, signal, sys, threading
from dri.extract.spacy_import import import_spacy
# Python's Ctrl-C, also where SIGINT came ignored (a job started in the background).
signal.signal(signal.SIGINT, signal.default_int_handler)
threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    import_spacy()
    print("not interrupted")
except KeyboardInterrupt:
    spacy = sys.modules.get("spacy")
    print("interrupted after the import" if spacy is not None and hasattr(spacy, "load") else "interrupted inside")
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_ctrl_c_during_spacys_import_is_raised_when_the_import_ends():
    # srsly imports ruamel's C parser under a bare except, which swallowed a
    # KeyboardInterrupt arriving then: the command ran on as if not interrupted.
    assert fresh_python(INTERRUPTED_IMPORT).split("\n")[:2] == ["interrupted after the import", "True"]
