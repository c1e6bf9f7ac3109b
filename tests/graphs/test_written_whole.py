"""Graph files (``dri graph --out``, ``--png``) are written whole: a reader
beside a writer (``dri compare a.json b.json`` while ``dri graph --out``
rewrites them, or two ``dri graph --out`` into one folder) sees the old file
or the new one, never one cut short."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
from processes import reads_beside, writer_process

from dri.graphs import add_triple, new_graph
from dri.graphs.export import draw_png, write_graphml
from dri.graphs.ros import save_json

PNG_END = b"IEND\xaeB`\x82"


def _graph() -> nx.DiGraph:
    g = new_graph("d", name="many")
    for i in range(60):
        add_triple(g, f"agent{i}", f"verb{i % 7}", f"thing{i}", sentence=i)
    return g


def _write(folder: Path, times: int) -> None:
    g = _graph()
    for _ in range(times):
        save_json(g, folder / "g.json")
        write_graphml(g, folder / "g.graphml")
        draw_png(g, folder / "g.png", max_nodes=40)


def _whole(path: Path) -> bool:
    data = path.read_bytes()
    if path.suffix == ".png":
        return data.endswith(PNG_END)
    if path.suffix == ".graphml":
        return data.rstrip().endswith(b"</graphml>")
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def test_a_reader_beside_a_writer_never_sees_half_a_graph_file(tmp_path) -> None:
    _write(tmp_path, 1)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["g.graphml", "g.json", "g.png"]
    writer = writer_process(__file__, "_write", tmp_path, 15)
    reads, cut_short = reads_beside(writer, [tmp_path / name for name in names], _whole)
    assert reads > 100
    assert cut_short == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == names
