"""A mapping as a picture: the two ROS graphs side by side, mapped pairs linked.

The source graph is drawn on the left, the target on the right, in SVG with
matplotlib. Concepts are ellipses (blue; adjectives green), relations rounded
boxes (orange), higher-order relations square boxes (red); ``subj`` edges are
solid and ``obj`` edges dashed, as in :func:`graphs.export.draw_png`. Each
mapped pair is a curve from its source node to its target node, coloured by
its Lin similarity (the colour bar under the graphs) and dashed for a loose
concept pair (:attr:`mapping.MappedPair.loose`). Candidate inferences
(:mod:`mapping.inference`) are drawn into the target in purple with dotted
outlines: the source relation carried over, linked to the counterparts of its
mapped arguments and to a new entity (SME's skolem) for each unmapped one.

Layout. The source is laid out by Fruchterman and Reingold's spring model
(``networkx.spring_layout``; Kamada-Kawai looked no better here and took ten
times as long); each mapped target node takes its source counterpart's place
and stays there, and the unmapped target nodes are placed around them by the
same spring model with those nodes fixed. A good analogy so looks
like the same shape twice, and the links run across the gap. An inferred
relation takes its source relation's place, which is where its target would
be. A graph over ``max_nodes`` nodes (about 60 stay readable) shows its
mapped part, then its neighbours as room allows; the picture says what it
left out (:attr:`MappingPicture.note`).

The SVG keeps its text as text (``svg.fonttype = none``: no glyph paths, no
font to fetch) and names its parts for tests and style sheets: each mapped
pair's link is a group ``<prefix>-pair-<i>`` (``i`` the pair's index in
``Mapping.pairs``), each inferred relation ``<prefix>-inference-<i>``, each
node ``<prefix>-source-<n>`` / ``<prefix>-target-<n>`` (``n`` its index among
the shown nodes).

Example
-------
>>> picture = draw_mapping(source_graph, target_graph, comparison.mapping)  # doctest: +SKIP
>>> Path("mapping.svg").write_text(picture.svg)                               # doctest: +SKIP
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from dri.graphs.ros import CONCEPT, OBJ
from dri.literal import plot_text, quiet_glyphs
from dri.mapping import MappedPair, Mapping
from dri.mapping.inference import CandidateInference

__all__ = ["MAX_INFERENCES", "MAX_NODES", "MappingPicture", "draw_mapping"]

#: Nodes per graph that a picture shows before it keeps to the mapped part.
MAX_NODES = 60
#: Candidate inferences drawn, best support first (a page lists them all).
MAX_INFERENCES = 8

# Node styles: (face colour, edge colour, matplotlib box style).
_NOUN = ("#c6dbef", "#3182bd", "ellipse,pad=0.25")
_ADJECTIVE = ("#c7e9c0", "#31a354", "ellipse,pad=0.25")
_RELATION = ("#fdd0a2", "#e6550d", "round,pad=0.3")
_HIGHER = ("#fcbba1", "#cb181d", "square,pad=0.3")
_INFERRED = ("#efedf5", "#6a51a3", "round,pad=0.3")
_NEW_ENTITY = ("#efedf5", "#6a51a3", "ellipse,pad=0.25")
_LIN_COLOURS = "viridis_r"
# How strongly each node is pulled to the middle, against 1 for an edge.
_GRAVITY = 0.05
# How far past its panel (a share of the panel) an unmapped target node may lie.
_SLACK = 0.3
# Inches under the graphs for the colour bar and its label.
_LEGEND = 0.9
# The gap between the two graphs, in units of one graph's width.
_GAP = 0.45


@dataclass(frozen=True)
class MappingPicture:
    """An SVG picture of a mapping and what it shows of the two graphs."""

    svg: str
    source_shown: int
    source_nodes: int
    target_shown: int
    target_nodes: int
    pairs_shown: int
    pairs: int
    inferences_shown: int = 0
    inferences: int = 0

    @property
    def note(self) -> str:
        """What was left out, in words; empty when the picture shows everything."""
        parts = []
        if self.source_shown < self.source_nodes:
            parts.append(f"{self.source_shown} of the source's {self.source_nodes} nodes")
        if self.target_shown < self.target_nodes:
            parts.append(f"{self.target_shown} of the target's {self.target_nodes} nodes")
        if self.pairs_shown < self.pairs:
            parts.append(f"{self.pairs_shown} of {self.pairs} mapped pairs")
        note = "Shows the mapped part: " + ", ".join(parts) + "." if parts else ""
        if self.inferences_shown < self.inferences:
            note += (
                f" Draws {self.inferences_shown} of the {self.inferences} candidate inferences"
                " (the best supported)."
            )
        return note.strip()


def _arguments(g: nx.DiGraph, node: str) -> list[str]:
    return [*g.predecessors(node), *g.successors(node)]


def _shown(g: nx.DiGraph, wanted: Iterable[str], max_nodes: int) -> list[str]:
    """``wanted`` (in order, as far as ``max_nodes`` allows), then their
    neighbours breadth first, then the rest, up to ``max_nodes`` nodes."""
    chosen = list(dict.fromkeys(n for n in wanted if n in g))[:max_nodes]
    seen = set(chosen)
    frontier = list(chosen)
    while frontier and len(chosen) < max_nodes:
        nxt = []
        for node in frontier:
            for other in sorted(_arguments(g, node)):
                if other not in seen and len(chosen) < max_nodes:
                    seen.add(other)
                    chosen.append(other)
                    nxt.append(other)
        frontier = nxt
    for node in sorted(g):
        if len(chosen) >= max_nodes:
            break
        if node not in seen:
            seen.add(node)
            chosen.append(node)
    return chosen


def _unit(pos: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Positions stretched to fill the unit square (the picture's panels are wider than tall)."""
    if not pos:
        return {}
    xs = [float(p[0]) for p in pos.values()]
    ys = [float(p[1]) for p in pos.values()]
    width, height = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return {n: ((float(p[0]) - min(xs)) / width, (float(p[1]) - min(ys)) / height) for n, p in pos.items()}


def _spring(g: nx.DiGraph, **options: Any) -> dict[str, Any]:
    """A spring layout with gravity: every node hangs on a weak spring from one
    hidden hub, so that the parts of a disconnected graph stay close together
    instead of flying apart and squeezing each other into a corner."""
    undirected = nx.Graph()
    undirected.add_nodes_from(g)
    undirected.add_edges_from(g.to_undirected().edges(), weight=1.0)
    hub = object()
    undirected.add_edges_from(((hub, n) for n in g), weight=_GRAVITY)
    if "pos" in options:
        options["pos"] = {**options["pos"], hub: (0.5, 0.5)}
    pos = nx.spring_layout(undirected, seed=1, iterations=200, weight="weight", **options)
    return {n: pos[n] for n in g}


def _layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    if g.number_of_nodes() == 0:
        return {}
    if g.number_of_nodes() == 1:
        return {next(iter(g)): (0.5, 0.5)}
    return _unit(_spring(g))


def _target_layout(g: nx.DiGraph, anchored: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Anchored nodes keep their places; the others settle around them."""
    free = [n for n in g if n not in anchored]
    if not free:
        return {n: anchored[n] for n in g}
    if not anchored:
        return _layout(g)
    # Free nodes start near their anchored neighbours, each a little apart:
    # nodes started at one point with the same neighbours would never part.
    rng = np.random.default_rng(1)
    start = dict(anchored)
    for n in free:
        near = [anchored[m] for m in _arguments(g, n) if m in anchored]
        cx, cy = np.mean(near, axis=0) if near else (0.5, 0.5)
        jx, jy = rng.uniform(-0.1, 0.1, size=2)
        start[n] = (float(cx + jx), float(cy + jy))
    pos = _spring(
        g,
        pos=start,
        fixed=list(anchored),
        k=1.2 / max(g.number_of_nodes(), 1) ** 0.5,
    )
    # Unmapped nodes pushed far out by the mapped ones stay at the edge of the panel.
    placed = {
        n: (min(max(float(x), -_SLACK), 1 + _SLACK), min(max(float(y), -_SLACK), 1 + _SLACK))
        for n, (x, y) in pos.items()
    }
    # A part with no mapped node drifts away from the rest: move it, whole, to
    # the edge of the mapped part.
    for part in nx.connected_components(g.to_undirected()):
        if part & anchored.keys():
            continue
        xs, ys = [placed[n][0] for n in part], [placed[n][1] for n in part]
        dx = _into(min(xs), max(xs), -_SLACK, 1 + _SLACK)
        dy = _into(min(ys), max(ys), -_SLACK, 1 + _SLACK)
        for n in part:
            placed[n] = (placed[n][0] + dx, placed[n][1] + dy)
    return placed


def _into(low: float, high: float, lowest: float, highest: float) -> float:
    """The shift that moves ``[low, high]`` into ``[lowest, highest]`` (its low end, if too long)."""
    if high - low > highest - lowest or low < lowest:
        return lowest - low
    return min(0.0, highest - high)


def _style(g: nx.DiGraph, node: str) -> tuple[str, str, str]:
    attrs = g.nodes[node]
    if attrs.get("type") == CONCEPT:
        return _ADJECTIVE if attrs.get("pos") == "a" else _NOUN
    return _HIGHER if attrs.get("order", 1) == 2 else _RELATION


def _label(text: str) -> str:
    """A lemma as a node shows it: words apart, drawn literally (no math, no control characters)."""
    return plot_text(text.replace("_", " "))


def _prefix(prefix: str) -> str:
    """An id prefix safe in SVG and HTML."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", prefix) or "mapping"


def draw_mapping(
    source: nx.DiGraph,
    target: nx.DiGraph,
    mapping: Mapping,
    inferences: Sequence[CandidateInference] = (),
    *,
    max_nodes: int = MAX_NODES,
    prefix: str = "mapping",
) -> MappingPicture:
    """The SVG picture of ``mapping`` from ``source`` onto ``target``.

    ``inferences`` are :class:`mapping.inference.CandidateInference` objects of
    the same mapping; ``prefix`` starts every element id, so several pictures
    can share one page.
    """
    # matplotlib is slow to import: only when a picture is drawn.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pid = _prefix(prefix)
    src, tgt, shown_pairs = _visible(source, target, mapping, inferences, max_nodes)
    src_pos, tgt_pos, shift = _positions(src, tgt, shown_pairs)

    n = max(len(src_pos), len(tgt_pos), 1)
    # About the width of a page at 72 dpi, so the text shows at its size; wider for more nodes.
    width = min(12.0 + 4.0 * n / MAX_NODES, 16.0)
    height = width / 2.1
    total = height + _LEGEND
    fig = plt.figure(figsize=(width, total))
    # Fixed axes rather than a tight bounding box: the figure is drawn once, not twice.
    ax = fig.add_axes((0.0, _LEGEND / total, 1.0, height / total))
    ax.set_axis_off()
    node = functools.partial(_draw_node, ax, 9 if n <= 35 else 8)

    _draw_edges(ax, src, src_pos)
    _draw_edges(ax, tgt, tgt_pos)
    for side, g, pos in (("source", src, src_pos), ("target", tgt, tgt_pos)):
        for k, v in enumerate(g):
            node(*pos[v], _label(str(g.nodes[v].get("lemma", v))), _style(g, v), f"{pid}-{side}-{k}")
    colours = plt.get_cmap(_LIN_COLOURS)
    _draw_links(ax, colours, shown_pairs, src_pos, tgt_pos, pid)
    inferences_shown = _draw_inferences(
        ax, node, inferences[:MAX_INFERENCES], src_pos, shift, tgt_pos, shown_pairs, pid
    )
    _draw_frame(fig, ax, colours, total, mapping, (source, src, src_pos), (target, tgt, tgt_pos), shift)
    return MappingPicture(
        svg=_svg(fig, pid),
        source_shown=src.number_of_nodes(),
        source_nodes=source.number_of_nodes(),
        target_shown=tgt.number_of_nodes(),
        target_nodes=target.number_of_nodes(),
        pairs_shown=len(shown_pairs),
        pairs=len(mapping.pairs),
        inferences_shown=inferences_shown,
        inferences=len(inferences),
    )


#: Node positions of one graph of a picture.
Positions = dict[str, tuple[float, float]]


def _visible(
    source: nx.DiGraph,
    target: nx.DiGraph,
    mapping: Mapping,
    inferences: Sequence[CandidateInference],
    max_nodes: int,
) -> tuple[nx.DiGraph, nx.DiGraph, list[tuple[int, MappedPair]]]:
    """The parts of both graphs the picture shows, and the mapped pairs (with
    their index in the mapping) between them."""
    pairs = [(i, p) for i, p in enumerate(mapping.pairs) if p.source in source and p.target in target]
    wanted_source = [p.source for _, p in pairs]
    for inference in inferences:
        wanted_source.append(inference.source_relation)
        wanted_source += [a.source for a in inference.arguments]
    src = _induced(source, _shown(source, wanted_source, max_nodes))
    shown_pairs = [(i, p) for i, p in pairs if p.source in src]
    tgt = _induced(target, _shown(target, [p.target for _, p in shown_pairs], max_nodes))
    shown_pairs = [(i, p) for i, p in shown_pairs if p.target in tgt]
    return src, tgt, shown_pairs


def _induced(g: nx.DiGraph, nodes: Iterable[str]) -> nx.DiGraph:
    """The subgraph of ``g`` on ``nodes``, its nodes and edges in ``g``'s order.

    Not ``g.subgraph(nodes)``: a view on less than half the graph iterates
    the set of its nodes, whose order changes with each process's string
    hashing, and the layout starts from that order, so the same mapping
    would be drawn differently by every run.
    """
    keep = set(nodes)
    sub = nx.DiGraph()
    sub.graph.update(g.graph)
    sub.add_nodes_from((n, g.nodes[n]) for n in g if n in keep)
    sub.add_edges_from((u, v, d) for u, v, d in g.edges(data=True) if u in keep and v in keep)
    return sub


def _positions(
    src: nx.DiGraph, tgt: nx.DiGraph, shown_pairs: Sequence[tuple[int, MappedPair]]
) -> tuple[Positions, Positions, float]:
    """Where the nodes go: the source on the left, the target on the right
    with each mapped node level with its source node; and the target's shift."""
    src_pos = _layout(src)
    anchored = {p.target: src_pos[p.source] for _, p in shown_pairs}
    tgt_pos = _target_layout(tgt, anchored)
    shift = 1.0 + _GAP + max((-x for x, _ in tgt_pos.values()), default=0.0)
    tgt_pos = {n: (x + shift, y) for n, (x, y) in tgt_pos.items()}
    return src_pos, tgt_pos, shift


def _draw_edges(ax: Any, g: nx.DiGraph, pos: Positions) -> None:
    """The graph's edges in grey: subject edges solid, object edges dashed."""
    for dashed in (False, True):
        chosen = [(u, v) for u, v, label in g.edges(data="label") if (label == OBJ) == dashed]
        if chosen:
            lines = nx.draw_networkx_edges(
                g,
                pos,
                edgelist=chosen,
                ax=ax,
                arrows=False,
                edge_color="#9e9e9e",
                width=0.8,
                style="--" if dashed else "-",
            )
            lines.set_zorder(1)


def _draw_node(
    ax: Any,
    font: int,
    x: float,
    y: float,
    text: str,
    style: tuple[str, str, str],
    gid: str,
    dashed: bool = False,
) -> None:
    """One node as a boxed label; ``dashed`` for a node an inference adds."""
    face, edge, box = style
    artist = ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=font,
        zorder=4 if dashed else 3,
        color=edge if dashed else "black",
        fontweight="bold" if dashed else "normal",
        bbox={
            "boxstyle": box,
            "fc": face,
            "ec": edge,
            "lw": 1.4 if dashed else 0.9,
            "ls": ":" if dashed else "-",
        },
    )
    artist.set_gid(gid)


def _draw_links(
    ax: Any,
    colours: Any,
    shown_pairs: Sequence[tuple[int, MappedPair]],
    src_pos: Positions,
    tgt_pos: Positions,
    pid: str,
) -> None:
    """A line per mapped pair, coloured by its Lin similarity (dashed: loose)."""
    from matplotlib.patches import FancyArrowPatch

    for i, p in shown_pairs:
        link = FancyArrowPatch(
            src_pos[p.source],
            tgt_pos[p.target],
            arrowstyle="-",
            connectionstyle="arc3,rad=-0.08",
            color=colours(max(0.0, min(1.0, p.lin))),
            lw=1.3,
            ls=(0, (4, 3)) if p.loose else "-",
            alpha=0.6,
            zorder=2,
            shrinkA=0,
            shrinkB=0,
        )
        link.set_gid(f"{pid}-pair-{i}")
        ax.add_patch(link)


def _draw_frame(
    fig: Any,
    ax: Any,
    colours: Any,
    total: float,
    mapping: Mapping,
    source_side: tuple[nx.DiGraph, nx.DiGraph, Positions],
    target_side: tuple[nx.DiGraph, nx.DiGraph, Positions],
    shift: float,
) -> None:
    """The limits, a title over each graph (with how many of its nodes show)
    and the colour bar of the Lin similarity. A side is (whole graph, shown
    part, positions)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    source, src, src_pos = source_side
    target, tgt, tgt_pos = target_side
    xs = [x for x, _ in (*src_pos.values(), *tgt_pos.values())] or [0.0, 1.0]
    ys = [y for _, y in (*src_pos.values(), *tgt_pos.values())] or [0.0, 1.0]
    ax.set_xlim(min(xs) - 0.12, max(xs) + 0.12)
    ax.set_ylim(min(ys) - 0.1, max(ys) + 0.14)
    top = max(ys) + 0.1
    for x, name, g, size in (
        (0.5, mapping.source_name or "source", src, source.number_of_nodes()),
        (shift + 0.5, mapping.target_name or "target", tgt, target.number_of_nodes()),
    ):
        shown = f"{g.number_of_nodes()} of {size}" if g.number_of_nodes() < size else f"{size}"
        ax.text(
            x, top, f"{plot_text(name)} ({shown} nodes)", ha="center", va="bottom", fontsize=11, weight="bold"
        )
    bar = fig.colorbar(
        ScalarMappable(norm=Normalize(0.0, 1.0), cmap=colours),
        cax=fig.add_axes((0.3, 0.5 / total, 0.4, 0.12 / total)),
        orientation="horizontal",
    )
    bar.set_label("Lin similarity of a mapped pair (dashed: loose pair)", fontsize=9)
    bar.ax.tick_params(labelsize=8)


def _svg(fig: Any, pid: str) -> str:
    """The figure as SVG to inline in HTML (no XML prolog or doctype), then closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    with quiet_glyphs(), matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": pid}):
        fig.savefig(
            buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None}
        )
    plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def _draw_inferences(
    ax: Any,
    node: Any,
    inferences: Sequence[CandidateInference],
    src_pos: dict[str, tuple[float, float]],
    shift: float,
    tgt_pos: dict[str, tuple[float, float]],
    shown_pairs: Sequence[tuple[int, MappedPair]],
    pid: str,
) -> int:
    """Each inference whose source relation is shown, at that relation's place
    moved into the target, with dotted edges to its arguments; returns how many."""
    inferred_at = {
        inf.source_relation: (src_pos[inf.source_relation][0] + shift, src_pos[inf.source_relation][1])
        for inf in inferences
        if inf.source_relation in src_pos
    }
    new_entities: dict[str, tuple[float, float]] = {}
    drawn = 0
    for k, inference in enumerate(inferences):
        if inference.source_relation not in inferred_at:
            continue
        x, y = inferred_at[inference.source_relation]
        for argument in inference.arguments:
            if argument.target is not None and argument.target in tgt_pos:
                end = tgt_pos[argument.target]
            elif argument.source in inferred_at:
                end = inferred_at[argument.source]
            elif argument.source in src_pos and argument.kind == CONCEPT:
                if argument.source not in new_entities:
                    sx, sy = src_pos[argument.source]
                    new_entities[argument.source] = (sx + shift, sy)
                    node(
                        sx + shift,
                        sy,
                        f"new: {_label(argument.source_lemma)}",
                        _NEW_ENTITY,
                        f"{pid}-new-{len(new_entities)}",
                        dashed=True,
                    )
                end = new_entities[argument.source]
            else:
                continue
            ax.plot([x, end[0]], [y, end[1]], color="#6a51a3", lw=1.0, ls=":", zorder=1)
        node(x, y, f"{_label(inference.lemma)}?", _INFERRED, f"{pid}-inference-{k}", dashed=True)
        drawn += 1
    return drawn
