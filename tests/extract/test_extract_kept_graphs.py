"""extract/kept_graphs.py: graphs kept between processes; every failure is a miss."""

from __future__ import annotations

import sqlite3

from dri.extract.kept_graphs import GraphCache
from dri.graphs import add_triple, new_graph
from dri.graphs.ros import to_json


def _graph(graph_id: str, name: str = "solar"):
    graph = new_graph(f"doc-{graph_id}", name=name, graph_id=graph_id, text="The sun attracts the planets.")
    add_triple(graph, "sun", "attract", "planet")
    graph.graph["encoder_sentences"] = "AAAA"
    return graph


def test_a_kept_graph_comes_back_exactly(tmp_path):
    kept = GraphCache(tmp_path / "graphs.sqlite", variant="model-a")
    graph = _graph("g1", name="caf\udce9")  # a name that is not UTF-8 comes back as itself
    kept.put(graph, chars=29)
    found = GraphCache(tmp_path / "graphs.sqlite", variant="model-a").get("g1")
    assert found is not None and found.chars == 29
    assert to_json(found.graph) == to_json(graph)


def test_another_variant_or_id_is_a_miss(tmp_path):
    kept = GraphCache(tmp_path / "graphs.sqlite", variant="model-a")
    kept.put(_graph("g1"), chars=29)
    assert GraphCache(tmp_path / "graphs.sqlite", variant="model-b").get("g1") is None
    assert kept.get("g2") is None


def test_a_damaged_row_or_file_is_a_miss(tmp_path):
    path = tmp_path / "graphs.sqlite"
    kept = GraphCache(path, variant="v")
    for graph_id in ("g1", "g2", "g3"):
        kept.put(_graph(graph_id), chars=29)
    kept.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE graphs SET graph = ? WHERE graph_id = 'g1'", (b"not zlib",))
        # A row that holds a graph, but another file's.
        db.execute(
            "UPDATE graphs SET graph = (SELECT graph FROM graphs WHERE graph_id = 'g2') WHERE graph_id = 'g3'"
        )
    assert GraphCache(path, variant="v").get("g1") is None
    assert GraphCache(path, variant="v").get("g3") is None
    assert GraphCache(path, variant="v").get("g2") is not None
    path.write_bytes(b"\0junk" * 100)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    broken = GraphCache(path, variant="v")
    assert broken.get("g2") is None
    broken.put(_graph("g2"), chars=29)  # no exception: the file is given up


def test_an_unwritable_folder_is_a_miss(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    kept = GraphCache(blocker / "cache" / "graphs.sqlite", variant="v")
    kept.put(_graph("g1"), chars=29)
    assert kept.get("g1") is None


def test_the_oldest_graphs_go_first(tmp_path, monkeypatch):
    kept_at_most, extra = 6, 3
    monkeypatch.setattr("dri.extract.kept_graphs.MAX_KEPT", kept_at_most)
    kept = GraphCache(tmp_path / "graphs.sqlite", variant="v")
    for n in range(kept_at_most + extra):
        kept.put(_graph(f"g{n}"), chars=1)
    assert [kept.get(f"g{n}") is None for n in range(extra + 1)] == [True] * extra + [False]
    assert kept.get(f"g{kept_at_most + extra - 1}") is not None
