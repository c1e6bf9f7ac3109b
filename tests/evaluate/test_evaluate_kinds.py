"""The registry of evaluation kinds: every entry is whole, and ``dri evaluate``
and the reports take their kinds from it."""

from __future__ import annotations

import argparse

import pytest
from session_env import fresh_python

import dri.evaluate as ev
from dri.commands import evaluate as command
from dri.evaluate.kinds import KINDS, kind
from dri.metrics.results import STRUCTURE_SCORES


def test_every_kind_names_a_runner_and_a_loader_of_its_module():
    assert list(KINDS) == ["plagiarism", "translation", "analogy", "judgements", "ranking", "choice"]
    for name, each in KINDS.items():
        assert each.name == name and each.title and each.summary
        runner = each.run_function()
        assert callable(runner) and runner.__module__ == f"dri.evaluate.{each.module}"
        loader = getattr(ev, each.loader)
        assert loader.__module__ == runner.__module__
        assert getattr(ev, each.runner) is runner


def test_the_headline_follows_the_kind():
    assert set(HEADLINES) == set(KINDS)
    for name in KINDS:
        order = ev.headline_order(name)
        assert sorted(order) == sorted(STRUCTURE_SCORES)
        assert order[0] == HEADLINES[name], name


#: Judgements lead with the encoder's content, which beat the combined score on the
#: sets it was not fitted on, and ranking with the query's coverage (docs/validity.md).
HEADLINES = {
    "plagiarism": "combined",
    "translation": "combined",
    "analogy": "analogy_similarity",
    "judgements": "content",
    "ranking": "coverage",
    "choice": "analogy_similarity",
}


def test_an_unknown_kind_is_named_with_the_known_ones():
    try:
        kind("poetry")
    except KeyError as err:
        assert "poetry" in str(err) and "plagiarism" in str(err)
    else:
        raise AssertionError("an unknown kind was accepted")


def test_the_command_takes_its_kinds_and_their_options_from_the_registry():
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    for name, each in KINDS.items():
        args = parser.parse_args(["evaluate", name, "somewhere"])
        assert args.kind == name
        for option in each.options:
            assert hasattr(args, option), (name, option)
    assert parser.parse_args(["evaluate", "analogy", "x", "--target", "a", "-k", "3"]).k == 3


@pytest.mark.parametrize(
    ("k", "says"),
    [("0", "at least 1, not 0"), ("-1", "at least 1, not -1"), ("x", "a whole number, not 'x'")],
)
def test_analogy_k_below_1_is_a_usage_error(capsys, k, says):
    # -k 0 reported no source and -k -1 all but the last (a slice), with exit 0.
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    with pytest.raises(SystemExit):
        parser.parse_args(["evaluate", "analogy", "x", "-k", k])
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"argument -k: must be {says}")


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_reading_the_registry_loads_neither_prefect_nor_a_kind_module():
    code = (
        "import sys, dri.evaluate.kinds, dri.commands.evaluate;"
        "print(sorted(m for m in sys.modules if m == 'prefect' or m.startswith('dri.evaluate.')))"
    )
    assert fresh_python(code).strip() == "['dri.evaluate.kinds']"


def test_a_language_given_twice_is_built_once():
    # "spa,cat" 25 times ran 50 round trips into two folders and said "50 languages".
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["evaluate", "translation", "c", "--languages", "spa,cat,spa, cat,epo"])
    assert args.languages == ["spa", "cat", "epo"]
