"""``dri watch --run`` notices change: a writer that pauses longer than
``--min-age`` leaves a half-written document, which is run; when the writer
finishes, the folder is run again, the document re-extracted and its
comparisons redone, the old ones replaced, not duplicated (SQLite and the
real Neo4j)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from dri.cli import main
from dri.extract import graph_from_text
from dri.graphs import summary
from dri.store import open_store

SOLAR = "The sun attracts the planets. The planets orbit the sun. The sun heats the planets.\n"
FIRST_HALF = "The nucleus attracts the electrons. The electrons orbit the nucleus.\n"
SECOND_HALF = "The physicist fires the particles. The foil scatters the particles.\n"
MIN_AGE = 1.0


def _age(root: Path, seconds: float = MIN_AGE + 0.5) -> None:
    """Every file and folder under ``root`` last changed ``seconds`` ago, as if
    the writer had paused that long (the sensor reads only their mtimes)."""
    then = time.time() - seconds
    for path in [root, *root.rglob("*")]:
        os.utime(path, (then, then))


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
        _age(root)  # the writer pauses longer than --min-age
        out = _watch_once(root, capsys)
        assert f"{folder}: new corpus of 2 documents, running it" in out
        half = {d.name: d.doc_id for d in store_env.documents("atoms")}
        half_concepts = summary(store_env.get_graph(half["atom.txt"])).concepts
        assert [(c.source_id, c.target_id) for c in store_env.comparisons()] != []
        writer.write(SECOND_HALF)
    _age(root)

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
    # The half-written content, in no corpus now, is gone with its graph: kept, it was
    # a second document named atom.txt, and a lookup by that name was refused.
    assert store_env.get_document(half["atom.txt"]) is None and store_env.get_graph(half["atom.txt"]) is None
    assert store_env.find_document("atom.txt").doc_id == full["atom.txt"]
    assert len({*full.values(), *(c.source_id for c in store_env.comparisons())}) == 2

    out = _watch_once(root, capsys)  # nothing changed: nothing run
    assert "running it" not in out


WATER = "The pump pushes the water. The pipe carries the water.\n"


def _seen(store) -> tuple[list, list, list]:
    """Each member's name and document, each document's own name, each comparison."""
    members = sorted((d.name, d.doc_id) for d in store.documents("atoms"))
    ids = {doc_id for _, doc_id in members}
    stored = sorted((c.source_id, c.target_id, c.run_id) for c in store.comparisons())
    names = sorted(store.get_document(d).name for d in ids)
    return members, names, stored


def test_a_deleted_or_renamed_file_leaves_no_old_entries(tmp_path, store_env, capsys):
    root = tmp_path / "incoming"
    folder = root / "atoms"
    folder.mkdir(parents=True)
    for name, text in (("solar.txt", SOLAR), ("atom.txt", FIRST_HALF + SECOND_HALF), ("water.txt", WATER)):
        (folder / name).write_text(text, encoding="utf-8")
    _age(root)
    assert "new corpus of 3 documents" in _watch_once(root, capsys)
    first = {d.name: d.doc_id for d in store_env.documents("atoms")}
    assert len(store_env.comparisons()) == 3
    kept_pair = {first["atom.txt"], first["solar.txt"]}

    (folder / "water.txt").unlink()
    (folder / "solar.txt").rename(folder / "sun.txt")
    _age(root)
    out = _watch_once(root, capsys)
    assert "changed since its last run, 2 documents, running it" in out
    assert "1 pairs (1 mapped, 0 already stored)" in out  # the renamed file's pair, mapped again
    members, names, stored = _seen(store_env)
    assert members == sorted([("atom.txt", first["atom.txt"]), ("sun.txt", first["solar.txt"])])
    assert names == ["atom.txt", "sun.txt"]  # the renamed document goes by its new name
    # One comparison of the two kept contents; the deleted one's are gone.
    [(source, target, _)] = stored
    assert {source, target} == kept_pair
    assert store_env.get_document(first["water.txt"]) is None  # in no corpus: gone
    assert store_env.find_document("solar.txt") is None
    assert [r.comparisons for r in store_env.runs()] == [1]

    # The same folder run afresh into an empty store stores exactly the same.
    counts = store_env.counts()
    store_env.clear()
    assert main(["run", str(folder), "--runner", "inline"]) == 0
    assert _seen(store_env) == (members, names, stored)
    assert store_env.counts() == counts


def test_a_folder_whose_corpus_the_store_lost_is_run_again(tmp_path, store_env, capsys):
    # After `dri store clear` (or with another store), the folder was "seen before,
    # unchanged" for ever, and the store stayed empty.
    root = tmp_path / "incoming"
    (root / "atoms").mkdir(parents=True)
    (root / "atoms" / "solar.txt").write_text(SOLAR, encoding="utf-8")
    (root / "atoms" / "atom.txt").write_text(FIRST_HALF, encoding="utf-8")
    _age(root)
    assert "new corpus of 2 documents, running it" in _watch_once(root, capsys)
    assert "no new or changed corpus (1 seen before, unchanged)" in _watch_once(root, capsys)
    store_env.clear()
    assert "new corpus of 2 documents, running it" in _watch_once(root, capsys)
    assert len(store_env.documents("atoms")) == 2
    # A folder whose run stored nothing is not run again at every scan.
    (root / "junk").mkdir()
    (root / "junk" / "empty.txt").write_bytes(b"")
    _age(root)
    assert main(["watch", str(root), "--once", "--run", "--min-age", str(MIN_AGE)]) == 1
    assert "junk: new corpus of 1 document" in capsys.readouterr().out
    assert "no new or changed corpus (2 seen before, unchanged)" in _watch_once(root, capsys)
