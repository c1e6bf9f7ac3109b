"""File and folder names that are not UTF-8 (bytes Python decodes to lone
surrogates) through ``dri run``, ``dri store top`` and ``dri watch``, on
SQLite and the real Neo4j: every document stored under its escaped name
(``\\udcff``), none lost or stored twice, output and files that encode and parse."""

from __future__ import annotations

import json
import os
import time

import pytest

from dri.cli import main
from dri.literal import storable
from dri.settings import data_dir as dri_data_dir
from dri.store import open_store

TEXTS = {
    b"\xffsun.txt": "The sun attracts the planets. The planets orbit the sun.\n",
    b"ok.txt": "The nucleus attracts the electrons. The electrons orbit the nucleus.\n",
    b"w\x80ter.txt": "The pump pushes the water. The pipe carries the water.\n",
}


@pytest.fixture(params=["sqlite", "neo4j"])
def store_env(request, data_dir, monkeypatch):
    """The store the runs write to, empty."""
    if request.param == "neo4j":
        monkeypatch.setenv("NEO4J_URI", request.getfixturevalue("neo4j_uri"))
    store = open_store()
    store.clear()
    try:
        yield store
    finally:
        store.close()


def _seen(store, corpus: str) -> tuple[list[str], int]:
    return sorted(d.name for d in store.documents(corpus)), len(store.comparisons())


def _clean(text: str) -> str:
    text.encode("utf-8")  # no lone surrogate reached the terminal
    return text


def test_names_that_are_not_utf8_are_stored_reported_and_renamed(tmp_path, store_env, capsys):
    root = tmp_path / os.fsdecode(b"in\xfecoming")
    folder = root / os.fsdecode(b"c\xfdorpus")
    folder.mkdir(parents=True)
    for name, text in TEXTS.items():
        (folder / os.fsdecode(name)).write_text(text, encoding="utf-8")
    corpus = storable(folder.name)
    names = sorted(storable(os.fsdecode(n)) for n in TEXTS)

    assert main(["run", str(folder), "--runner", "inline"]) == 0
    out = _clean(capsys.readouterr().out)
    assert "\\udcffsun.txt" in out and "3 documents" in out
    assert _seen(store_env, corpus) == (names, 3)
    counts = store_env.counts()
    summary = sorted((dri_data_dir() / "runs").glob("*.json"))
    assert summary and json.loads(summary[-1].read_text(encoding="utf-8"))["documents"] == 3

    assert main(["run", str(folder), "--runner", "inline"]) == 0  # again: nothing twice
    _clean(capsys.readouterr().out)
    assert store_env.counts() == counts

    assert main(["store", "top", str(folder / os.fsdecode(b"\xffsun.txt"))]) == 0
    out = _clean(capsys.readouterr().out)
    assert "\\udcffsun.txt" in out and "ok.txt" in out

    (folder / os.fsdecode(b"\xffsun.txt")).rename(folder / os.fsdecode(b"s\xfeun.txt"))
    time.sleep(0.2)
    assert main(["watch", str(root), "--once", "--run", "--min-age", "0"]) == 0
    out = _clean(capsys.readouterr().out)
    renamed = sorted(storable(os.fsdecode(n)) for n in (b"s\xfeun.txt", b"ok.txt", b"w\x80ter.txt"))
    assert _seen(store_env, corpus) == (renamed, 3)
    assert store_env.counts() == counts


def test_a_run_id_and_corpus_typed_in_bytes_that_are_not_utf8_are_kept_as_escapes(
    tmp_path, store_env, capsys
):
    # The stores refused the lone surrogates of --run-id, --run and --corpus: exit 70.
    folder = tmp_path / "c"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / os.fsdecode(name)).write_text(text, encoding="utf-8")
    run, corpus = os.fsdecode(b"r\xffun"), os.fsdecode(b"c\xfeorpus")
    assert main(["run", str(folder), "--runner", "inline", "--run-id", run, "--corpus", corpus]) == 0
    assert "run r\\udcffun:" in _clean(capsys.readouterr().out)
    assert [r.run_id for r in store_env.runs()] == [storable(run)]
    assert main(["store", "documents", corpus]) == 0
    assert len(_clean(capsys.readouterr().out).splitlines()) == 3
    assert main(["store", "top", str(folder / "ok.txt"), "--run", run, "--corpus", corpus]) == 0
    assert "run r\\udcffun" in _clean(capsys.readouterr().out)
    first = store_env.comparisons(run_id=storable(run))[0]
    assert main(["store", "mapping", first.source_id, first.target_id, "--run", run]) == 0
    assert "run r\\udcffun: analogy similarity" in _clean(capsys.readouterr().out)
