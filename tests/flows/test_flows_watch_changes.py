"""``dri watch --run`` notices change: a writer that pauses longer than
``--min-age`` leaves a half-written document, which is run; when the writer
finishes, the folder is run again, the document re-extracted and its
comparisons redone, the old ones replaced, not duplicated (SQLite and the
real Neo4j)."""

from __future__ import annotations

import time

import pytest

from dri.cli import main
from dri.extract import graph_from_text
from dri.graphs import summary
from dri.store import open_store

SOLAR = "The sun attracts the planets. The planets orbit the sun. The sun heats the planets.\n"
FIRST_HALF = "The nucleus attracts the electrons. The electrons orbit the nucleus.\n"
SECOND_HALF = "The physicist fires the particles. The foil scatters the particles.\n"
MIN_AGE = 1.0


@pytest.fixture(params=["sqlite", "neo4j"])
def store_env(request, data_dir, monkeypatch):
    """The store the watched runs write to, empty."""
    if request.param == "neo4j":
        monkeypatch.setenv("NEO4J_URI", request.getfixturevalue("neo4j_uri"))
    store = open_store()
    store.clear()
    try:
        yield store
    finally:
        store.close()


def _watch_once(root, capsys) -> str:
    assert main(["watch", str(root), "--once", "--run", "--min-age", str(MIN_AGE)]) == 0
    return capsys.readouterr().out


def test_a_document_finished_after_its_run_is_redone_and_replaces_the_old(tmp_path, store_env, capsys):
    root = tmp_path / "incoming"
    folder = root / "atoms"
    folder.mkdir(parents=True)
    (folder / "solar.txt").write_text(SOLAR, encoding="utf-8")
    atom = folder / "atom.txt"
    with atom.open("w", encoding="utf-8") as writer:
        writer.write(FIRST_HALF)
        writer.flush()
        time.sleep(MIN_AGE + 0.5)  # the writer pauses longer than --min-age
        out = _watch_once(root, capsys)
        assert f"{folder}: new corpus of 2 documents, running it" in out
        half = {d.name: d.doc_id for d in store_env.documents("atoms")}
        half_concepts = summary(store_env.get_graph(half["atom.txt"])).concepts
        assert [(c.source_id, c.target_id) for c in store_env.comparisons()] != []
        writer.write(SECOND_HALF)
    time.sleep(MIN_AGE + 0.5)

    out = _watch_once(root, capsys)
    assert f"{folder}: changed since its last run, 2 documents, running it" in out
    full = {d.name: d.doc_id for d in store_env.documents("atoms")}
    assert full.keys() == {"atom.txt", "solar.txt"}  # not duplicated
    assert full["solar.txt"] == half["solar.txt"] and full["atom.txt"] != half["atom.txt"]
    redone = summary(store_env.get_graph(full["atom.txt"])).concepts
    assert redone == summary(graph_from_text(FIRST_HALF + SECOND_HALF)).concepts > half_concepts
    # One comparison per pair of names, of the new content; the half-written one's is gone.
    pairs = [(c.source_id, c.target_id) for c in store_env.comparisons()]
    assert len(pairs) == 1 and set(pairs[0]) == set(full.values())
    assert [r.comparisons for r in store_env.runs()] == [1]

    out = _watch_once(root, capsys)  # nothing changed: nothing run
    assert "running it" not in out
