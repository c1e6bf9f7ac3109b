"""Graphs of files read before, kept between processes in the data folder.

``dri compare A B`` reads and parses both files on every call, and loading
spaCy and lemminflect alone takes about 1 s of CPU: more than the whole
comparison of two short texts. A ROS graph depends only on the file's bytes
and :data:`~extract.document.EXTRACTOR_VERSION`, which is what its
``graph_id`` hashes (:func:`~extract.document.content_ids`). So a command
that reads a file keeps the graph it built in
``data/cache/graphs.sqlite``, keyed by that id and by a ``variant`` string
of the caller's (the sentence encoder's sha256, since a compared graph
carries the encoder's vectors of its text), and the next command that
reads the same bytes takes the graph from there and loads no parser.

What comes back is what was built, plus what a comparison added to the
graph (the encoder vectors, which are kept exactly as they are used:
docs/mapping.md), with ``path`` and ``name`` those of the file read now.
Only a file read without a warning is kept, so a warning is shown whenever
the file is read. A kept graph whose text is longer than
``DRI_MAX_TEXT_CHARS`` now allows is a miss: the full read then refuses
the file in its own words.

The file is a cache, never a source of truth (:mod:`dri.sqlite_cache`): a
folder that cannot be written, a full disk, a damaged file or a damaged row
only mean the file is parsed again. At most :data:`MAX_KEPT` graphs are kept; the oldest go first.

>>> kept = GraphCache(Path("/tmp/graphs.sqlite"), variant="model-sha256")  # doctest: +SKIP
>>> kept.put(graph, chars=1200)                                            # doctest: +SKIP
>>> kept.get(graph.graph["graph_id"]).graph                               # doctest: +SKIP
<networkx.classes.digraph.DiGraph object at ...>
"""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from dri.graphs import NotAGraph, check_graph_json
from dri.graphs.ros import from_json, to_json
from dri.sqlite_cache import SqliteCache

__all__ = ["MAX_KEPT", "GraphCache", "KeptGraph"]

log = logging.getLogger(__name__)

#: Graphs kept at most; a put beyond it drops the oldest.
MAX_KEPT = 500

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS graphs (graph_id TEXT NOT NULL, variant TEXT NOT NULL, "
    "chars INTEGER NOT NULL, graph BLOB NOT NULL, PRIMARY KEY (graph_id, variant))"
)


@dataclass(frozen=True)
class KeptGraph:
    """A kept graph and the characters of text its file had."""

    graph: nx.DiGraph
    chars: int


class GraphCache:
    """ROS graphs by ``graph_id`` in one SQLite file; every failure is a miss."""

    def __init__(self, path: Path, variant: str) -> None:
        self.path = path
        self.variant = variant
        self._file = SqliteCache(path, _SCHEMA, name="graph cache")

    def get(self, graph_id: str) -> KeptGraph | None:
        """The graph kept for ``graph_id``, or None."""
        row = self._file.run(
            lambda db: db.execute(
                "SELECT chars, graph FROM graphs WHERE graph_id = ? AND variant = ?", (graph_id, self.variant)
            ).fetchone(),
            None,
        )
        if row is None:
            return None
        chars, blob = row
        graph = _graph(blob)
        if graph is None or graph.graph.get("graph_id") != graph_id or not isinstance(chars, int):
            log.debug("kept graph %s is damaged: parsed again", graph_id)
            return None
        return KeptGraph(graph, chars)

    def put(self, graph: nx.DiGraph, chars: int) -> None:
        """Keep ``graph`` (it must have its ``graph_id``); a failure is logged and forgotten."""
        graph_id = graph.graph.get("graph_id")
        if not isinstance(graph_id, str) or not graph_id:
            return
        # ensure_ascii: a lone surrogate (a name that is not UTF-8) comes back as itself.
        blob = zlib.compress(json.dumps(to_json(graph), ensure_ascii=True).encode("ascii"), 1)

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO graphs (graph_id, variant, chars, graph) VALUES (?,?,?,?)",
                    (graph_id, self.variant, chars, blob),
                )
                db.execute(
                    "DELETE FROM graphs WHERE rowid NOT IN (SELECT rowid FROM graphs ORDER BY rowid DESC LIMIT ?)",
                    (MAX_KEPT,),
                )

        self._file.run(write, None)

    def close(self) -> None:
        self._file.close()


def _graph(blob: object) -> nx.DiGraph | None:
    """The graph in a row, or None if the row is not one :meth:`GraphCache.put` wrote."""
    if not isinstance(blob, bytes):
        return None
    try:
        data = json.loads(zlib.decompress(blob))
        check_graph_json(data)
        return from_json(data)
    except (zlib.error, ValueError, NotAGraph, KeyError, TypeError):
        return None
