"""``dri store`` through the real CLI, on the embedded store and the real Neo4j."""

from __future__ import annotations

import pytest
from store_test_helpers import comparison, corpus_graphs

from dri.cli import main
from dri.store import open_store


@pytest.fixture(params=["sqlite", "neo4j"])
def uri(request, tmp_path):
    uri = (
        f"sqlite:///{tmp_path / 's.sqlite'}"
        if request.param == "sqlite"
        else request.getfixturevalue("neo4j_uri")
    )
    with open_store(uri) as store:
        store.clear()
        for g in corpus_graphs():
            store.put_document("tiny", g, meta={"level": "cut"})
        store.put_comparison(comparison("atom", "solar", "run-1", 0.9))
        store.put_comparison(comparison("solar", "water", "run-1", 0.4))
    return uri


def test_info_top_and_mapping(uri, capsys):
    assert main(["store", "--uri", uri, "info"]) == 0
    out = capsys.readouterr().out
    assert "corpora (1): tiny" in out and "runs (1): run-1 (2)" in out
    assert main(["store", "--uri", uri, "top", "solar.txt", "-k", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "solar.txt (solar): 2 analogues"
    assert lines[1].startswith("  1. 0.9000  atom.txt") and lines[2].startswith("  2. 0.4000  water.txt")
    assert main(["store", "--uri", uri, "mapping", "atom.txt", "/corpus/solar.txt", "--run", "run-1"]) == 0
    out = capsys.readouterr().out
    assert "analogy similarity 0.9000" in out and "concept  a ~ b  lin 0.900  generic entity.n.01" in out
    assert main(["store", "--uri", uri, "documents", "tiny"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4


def test_unknown_documents_and_clear_without_yes_are_errors(uri, capsys):
    assert main(["store", "--uri", uri, "top", "nope.txt"]) == 1
    assert "no document 'nope.txt'" in capsys.readouterr().err
    assert main(["store", "--uri", uri, "clear"]) == 2
    assert main(["store", "--uri", uri, "clear", "--yes"]) == 0
    with open_store(uri) as store:
        assert store.corpora() == []


def test_top_of_a_run_or_corpus_the_store_lacks_is_one_line(uri, capsys):
    assert main(["store", "--uri", uri, "top", "solar.txt", "--run", "run-2"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"error: {_location(uri)}: no run 'run-2' (dri store runs lists them)"
    ]
    # It said "no document 'solar.txt' in corpus 'nowhere'", sending the user after the document.
    assert main(["store", "--uri", uri, "top", "solar.txt", "--corpus", "nowhere"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {_location(uri)}: no corpus 'nowhere' (dri store corpora lists them)"
    ]
    assert main(["store", "--uri", uri, "top", "nope.txt", "--corpus", "tiny"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {_location(uri)}: no document 'nope.txt' in corpus 'tiny'"
    ]
    with pytest.raises(SystemExit) as usage:  # an empty name is a usage error, before any lookup
        main(["store", "--uri", uri, "top", "solar.txt", "--corpus", ""])
    assert usage.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("error: argument --corpus: an empty name")


def test_a_mapping_asked_the_other_way_round_or_of_an_unknown_run_says_so(uri, capsys):
    # Both were "no comparison of solar.txt with atom.txt in run ...".
    assert main(["store", "--uri", uri, "mapping", "solar.txt", "atom.txt", "--run", "run-1"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {_location(uri)}: no comparison of solar.txt with atom.txt in run 'run-1' "
        "(atom.txt -> solar.txt is: give them in that order)"
    ]
    assert main(["store", "--uri", uri, "mapping", "atom.txt", "solar.txt", "--run", "nope"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {_location(uri)}: no run 'nope' (dri store runs lists them)"
    ]
    assert main(["store", "--uri", uri, "mapping", "atom.txt", "water.txt", "--run", "run-1"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {_location(uri)}: no comparison of atom.txt with water.txt in run 'run-1'"
    ]


def _location(uri: str) -> str:
    with open_store(uri) as store:
        return str(store.location)


def test_a_dead_server_is_one_line_on_stderr(capsys, monkeypatch):
    monkeypatch.setenv("DRI_NEO4J_RETRY_SECONDS", "1")
    monkeypatch.setenv("DRI_NEO4J_CONNECTION_TIMEOUT", "1")
    assert main(["store", "--uri", "bolt://127.0.0.1:1", "info"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Neo4j at bolt://127.0.0.1:1: ") and err.count("\n") == 1
