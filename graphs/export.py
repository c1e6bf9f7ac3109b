"""Writing ROS graphs for other tools and for people.

* GraphML, for Gephi, yEd, Cytoscape or Neo4j's APOC import. GraphML has no
  list type, so list attributes (sentences, sections, mentions) are written
  as JSON strings; :func:`read_graphml` turns them back into lists. XML 1.0
  forbids most control characters: those of a name or lemma are written as
  visible escapes (``\\u000b``).
* PNG, drawn with matplotlib: noun concepts as blue circles, adjective
  concepts as green circles, relations as orange squares, higher-order
  relations (cause, purpose, before, after, contrast) as red diamonds,
  ``subj`` edges solid and ``obj`` edges dashed, so that the noun-verb-noun
  structure and the links between clauses can be read at a glance.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import networkx as nx

from dri import atomic
from dri.graphs.ros import CONCEPT, OBJ, concept_nodes, relation_nodes
from dri.literal import plot_text, printable, quiet_glyphs

__all__ = ["draw_png", "read_graphml", "write_graphml"]

_LIST_ATTRS = ("sentences", "sections", "mentions")


def _xml(value: object) -> object:
    """A string as XML 1.0 takes it: control characters and lone surrogates
    (a file name's) as visible escapes (:func:`dri.literal.printable`)."""
    return printable(value, newlines=True) if isinstance(value, str) else value


def _xml_ids(nodes: list[object]) -> dict[object, object]:
    """Each node's id as XML 1.0 takes it (:func:`_xml`), one id for one node: an
    id whose escape is another node's id (``cat\\x01`` escaped is ``cat\\u0001``,
    which a text may spell out) gets `` (2)``, `` (3)``… Two such nodes were
    merged into one, with the edges of both; every other id is as it was."""
    plain = [node for node in nodes if _xml(node) == node]
    escaped = [node for node in nodes if _xml(node) != node]
    ids: dict[object, object] = {}
    taken: set[object] = set()
    for node in (*plain, *escaped):  # plain ids first: they keep their names
        shown, n = _xml(node), 1
        while shown in taken:
            n += 1
            shown = f"{_xml(node)} ({n})"
        ids[node] = shown
        taken.add(shown)
    return ids


def write_graphml(g: nx.DiGraph, path: str | Path) -> None:
    out = nx.DiGraph()
    out.graph.update({k: _xml(v) for k, v in g.graph.items() if isinstance(v, (str, int, float, bool))})
    ids = _xml_ids(list(g.nodes))
    for node, attrs in g.nodes(data=True):
        out.add_node(
            ids[node], **{k: _xml(json.dumps(v) if k in _LIST_ATTRS else v) for k, v in attrs.items()}
        )
    out.add_edges_from((ids[u], ids[v], {k: _xml(x) for k, x in d.items()}) for u, v, d in g.edges(data=True))
    data = io.BytesIO()
    nx.write_graphml(out, data)
    atomic.write_bytes(path, data.getvalue())  # whole: a reader never sees half a graph


def read_graphml(path: str | Path) -> nx.DiGraph:
    g = nx.read_graphml(str(path))
    for _, attrs in g.nodes(data=True):
        for key in _LIST_ATTRS:
            if key in attrs:
                attrs[key] = json.loads(attrs[key])
    return g


def draw_png(g: nx.DiGraph, path: str | Path, *, title: str | None = None, max_nodes: int = 150) -> None:
    """Draw ``g`` to a PNG file; graphs over ``max_nodes`` keep their busiest part."""
    # matplotlib is slow to import: only when a graph is drawn.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = g
    if g.number_of_nodes() > max_nodes:
        # The busiest concepts carry the structure a reader cares about.
        ranked = sorted(concept_nodes(g), key=lambda n: (-g.degree(n), n))
        keep = set(ranked[: max_nodes // 3])
        first = [r for r in relation_nodes(g) if g.nodes[r].get("order", 1) == 1]
        rels = [r for r in first if set(g.predecessors(r)) | set(g.successors(r)) <= keep | set(first)]
        chosen = set(rels[: max_nodes - len(keep)])
        higher = [
            r
            for r in relation_nodes(g)
            if g.nodes[r].get("order", 1) == 2 and set(g.predecessors(r)) | set(g.successors(r)) <= chosen
        ]
        shown = g.subgraph(keep | chosen | set(higher))

    n = max(shown.number_of_nodes(), 1)
    size = min(6 + n**0.5 * 1.2, 30)
    fig, ax = plt.subplots(figsize=(size, size * 0.75))
    pos = nx.kamada_kawai_layout(shown) if 1 < n <= 400 else nx.spring_layout(shown, seed=1)
    kinds: dict[str, list[str]] = {"noun": [], "adjective": [], "relation": [], "higher": []}
    for v, attrs in shown.nodes(data=True):
        if attrs.get("type") == CONCEPT:
            kinds["adjective" if attrs.get("pos") == "a" else "noun"].append(v)
        else:
            kinds["higher" if attrs.get("order", 1) == 2 else "relation"].append(v)
    for kind, color, shape, size_ in (
        ("noun", "#9ecae1", "o", 900),
        ("adjective", "#a1d99b", "o", 900),
        ("relation", "#fdae6b", "s", 700),
        ("higher", "#fb6a4a", "D", 800),
    ):
        nx.draw_networkx_nodes(
            shown, pos, nodelist=kinds[kind], node_color=color, node_shape=shape, node_size=size_, ax=ax
        )
    subj = [(u, v) for u, v, lab in shown.edges(data="label") if lab != OBJ]
    obj = [(u, v) for u, v, lab in shown.edges(data="label") if lab == OBJ]
    nx.draw_networkx_edges(shown, pos, edgelist=subj, arrows=True, ax=ax, node_size=900)
    nx.draw_networkx_edges(shown, pos, edgelist=obj, arrows=True, style="dashed", ax=ax, node_size=900)
    labels = {v: plot_text(shown.nodes[v].get("lemma", v)) for v in shown}
    nx.draw_networkx_labels(shown, pos, labels=labels, font_size=8, ax=ax)
    heading = plot_text(title or g.graph.get("name") or g.graph.get("doc_id", ""))
    if shown is not g:
        heading += f" (busiest {shown.number_of_nodes()} of {g.number_of_nodes()} nodes)"
    ax.set_title(
        f"{heading}\nconcepts: circles (adjectives green), relations: squares, "
        "higher-order relations: diamonds, subj: solid, obj: dashed"
    )
    ax.axis("off")
    with quiet_glyphs():
        fig.tight_layout()
        # PNG whatever the name ends in (matplotlib would pick the format from
        # the suffix, and a name such as graph.txt is a ValueError there).
        picture = io.BytesIO()
        fig.savefig(picture, format="png", dpi=100)
    plt.close(fig)
    atomic.write_bytes(path, picture.getvalue())  # whole: a reader never sees half a picture
