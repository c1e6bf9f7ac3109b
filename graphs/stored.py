"""Reading a stored ROS graph (the JSON that ``dri graph --out`` writes) from a user's file.

:func:`~dri.graphs.ros.from_json` trusts its input: the stores hand it what
:func:`~dri.graphs.ros.to_json` wrote. A file named on the command line is
checked first (:func:`check_graph_json`): any JSON value that is not the
shape :func:`~dri.graphs.ros.to_json` writes (``[]``, ``null``, ``{}``, a
node without ``lemma``, a wrong type, an edge to a missing node, a ``subj``
edge into a concept, ...) raises :class:`NotAGraph` with one reason, so that
every bad file gets the same one-line error and nothing downstream meets a
graph it cannot handle. The file is read through
:func:`dri.files.read_limited` (at most :data:`MAX_GRAPH_BYTES`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import networkx as nx

from dri.errors import json_reason
from dri.files import read_limited
from dri.graphs.ros import CONCEPT, OBJ, RELATION, SCHEMA_VERSION, SUBJ, from_json
from dri.literal import lone_surrogate, lone_surrogate_problem, storable

__all__ = ["MAX_GRAPH_BYTES", "NotAGraph", "check_graph_json", "load_json"]

#: The largest graph JSON read: a 2,000,000-character book gives well under 100 MB.
MAX_GRAPH_BYTES = 100_000_000

_RELATION_ID = re.compile(r"r:[0-9]{1,18}")
_TEXT_ATTRS = ("doc_id", "graph_id", "name", "path", "kind", "title", "extractor_version")
_COUNT_ATTRS = ("sentences", "next_relation")


class NotAGraph(ValueError):
    """JSON that is not a stored ROS graph; ``reason`` says what is wrong, in one line."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value: object) -> bool:
    """A string that can be printed and stored (no lone surrogates)."""
    return isinstance(value, str) and lone_surrogate(value) is None


def _not_text(value: object) -> str | None:
    """Why ``value`` is not a string that can be printed and stored, or ``None``."""
    if not isinstance(value, str):
        return f"must be a string, not {_type(value)}"
    return lone_surrogate_problem(value)


def _check_list(where: str, value: object, item_ok: Any, item: str) -> None:
    if not isinstance(value, list):
        raise NotAGraph(f"{where} must be a list of {item}, not {_type(value)}")
    for entry in value:
        if not item_ok(entry):  # the list is one: the entry is what to fix
            # A string that is not text says why: "a list of strings; it holds a string" did not.
            reason = lone_surrogate_problem(entry) if isinstance(entry, str) else None
            if reason:
                raise NotAGraph(f"{where} must be a list of {item}; one of them {reason}")
            raise NotAGraph(f"{where} must be a list of {item}; it holds {_type(entry)}: {entry!r:.40}")


def _check_graph_attrs(attrs: object) -> None:
    if not isinstance(attrs, dict):
        raise NotAGraph(f'"graph" must be an object, not {_type(attrs)}')
    for key in _TEXT_ATTRS:
        # A lone surrogate here (a file name that is not UTF-8) is read as its escape (load_json).
        if attrs.get(key) is not None and not isinstance(attrs[key], str):
            raise NotAGraph(f'graph attribute "{key}" must be a string, not {_type(attrs[key])}')
    if attrs.get("text") is not None:
        # The text the content similarity encodes: a number or a lone surrogate
        # reached the encoder's tokenizer (a TypeError, exit 70 in dri compare).
        reason = _not_text(attrs["text"])
        if reason:
            raise NotAGraph(f'graph attribute "text" {reason}')
    for key in _COUNT_ATTRS:
        if key in attrs and not (_is_int(attrs[key]) and 0 <= attrs[key] < 2**53):
            raise NotAGraph(f'graph attribute "{key}" must be a count, not {attrs[key]!r:.40}')
    if "sections" in attrs:
        _check_list('graph attribute "sections"', attrs["sections"], _is_text, "strings")


def _check_node(n: int, node: object) -> tuple[str, str, int]:
    """``(id, type, order)`` of a valid node, else :class:`NotAGraph`."""
    where = f"node {n + 1}"
    if not isinstance(node, dict):
        raise NotAGraph(f"{where} must be an object, not {_type(node)}")
    for key in ("id", "type", "lemma"):
        if not isinstance(node.get(key), str) or not node[key]:
            raise NotAGraph(f'{where}: "{key}" must be a non-empty string')
        if _not_text(node[key]):
            raise NotAGraph(f'{where}: "{key}" {_not_text(node[key])}')
    node_id, kind = node["id"], node["type"]
    if kind not in (CONCEPT, RELATION):
        raise NotAGraph(f'{where}: "type" must be "{CONCEPT}" or "{RELATION}", not {kind!r:.40}')
    if _not_text(node.get("pos")):
        raise NotAGraph(f'{where}: "pos" {_not_text(node.get("pos"))}')
    _check_list(
        f'{where}: "sentences"', node.get("sentences"), lambda v: _is_int(v) and v >= 0, "sentence numbers"
    )
    _check_list(f'{where}: "sections"', node.get("sections"), _is_text, "strings")
    if "mentions" in node:
        _check_list(f'{where}: "mentions"', node["mentions"], _is_text, "strings")
    for key in ("entity", "wordnet_lemma"):
        if node.get(key) is not None and _not_text(node[key]):
            raise NotAGraph(f'{where}: "{key}" {_not_text(node[key])}')
    order = node.get("order", 1) if kind == RELATION else 0
    if kind == RELATION and (
        order not in (1, 2) or not _is_int(order) or not _RELATION_ID.fullmatch(node_id)
    ):
        raise NotAGraph(f'{where}: a relation needs an id "r:<number>" and an "order" of 1 or 2')
    return node_id, kind, order


def _check_edges(edges: object, nodes: Mapping[str, tuple[str, int]]) -> None:
    if not isinstance(edges, list):
        raise NotAGraph(f'"edges" must be an array, not {_type(edges)}')
    seen: set[tuple[str, str]] = set()  # (relation, label): one subject and one object each
    for n, edge in enumerate(edges):
        where = f"edge {n + 1}"
        if not isinstance(edge, dict):
            raise NotAGraph(f"{where} must be an object, not {_type(edge)}")
        source, target, label = edge.get("source"), edge.get("target"), edge.get("label")
        for end in (source, target):
            if not isinstance(end, str) or end not in nodes:
                raise NotAGraph(f"{where} links a node that is not in the graph ({end!r:.40})")
        assert isinstance(source, str) and isinstance(target, str)
        if label not in (SUBJ, OBJ):
            raise NotAGraph(f'{where}: "label" must be "{SUBJ}" or "{OBJ}", not {label!r:.40}')
        relation, argument = (target, source) if label == SUBJ else (source, target)
        (rel_kind, rel_order), (arg_kind, arg_order) = nodes[relation], nodes[argument]
        fits = rel_kind == RELATION and (
            (rel_order == 1 and arg_kind == CONCEPT)
            or (rel_order == 2 and arg_kind == RELATION and arg_order == 1)
        )
        if not fits or (relation, label) in seen:
            raise NotAGraph(f"{where}: a {label} edge {source} -> {target} does not fit a ROS graph")
        seen.add((relation, label))


def check_graph_json(data: object) -> None:
    """Raise :class:`NotAGraph` unless ``data`` (parsed JSON) has the shape
    :func:`~dri.graphs.ros.to_json` writes."""
    if not isinstance(data, dict):
        raise NotAGraph(f"the file holds {_type(data)}, not a graph object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION or not _is_int(version):
        raise NotAGraph(f"unsupported ROS graph schema version {version!r:.40} (expected {SCHEMA_VERSION})")
    _check_graph_attrs(data.get("graph", {}))
    if not isinstance(data.get("nodes"), list):
        raise NotAGraph(f'"nodes" must be an array, not {_type(data.get("nodes"))}')
    nodes: dict[str, tuple[str, int]] = {}
    for n, node in enumerate(data["nodes"]):
        node_id, kind, order = _check_node(n, node)
        if node_id in nodes:
            raise NotAGraph(f"node {n + 1}: the id {node_id!r:.40} is used twice")
        nodes[node_id] = (kind, order)
    _check_edges(data.get("edges"), nodes)


def load_json(path: str | Path, *, max_bytes: int = MAX_GRAPH_BYTES) -> nx.DiGraph:
    """The ROS graph stored in ``path``.

    Raises :class:`dri.files.FileRefused` for a file that cannot be read (not a
    regular file, too large, missing) and :class:`NotAGraph` for one that is not
    a stored ROS graph.
    """
    data = read_limited(path, max_bytes, what="graph file")
    try:
        parsed = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise NotAGraph("not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise NotAGraph(f"not JSON ({json_reason(err)})") from None
    except ValueError as err:  # e.g. a number of more digits than Python converts
        raise NotAGraph(f"not JSON the graph reader accepts ({' '.join(str(err).split())})") from None
    except RecursionError:
        raise NotAGraph("JSON nested too deeply") from None
    check_graph_json(parsed)
    attrs = parsed.get("graph", {})
    for key in _TEXT_ATTRS:
        if isinstance(attrs.get(key), str):
            attrs[key] = storable(attrs[key])
    return from_json(parsed)
