"""The records the store reads and writes, shared by both backends.

Both backends take and return exactly these dataclasses, so the flows, the
CLI and the evaluations never see a backend's own types. Conversions from the
mapper's and the scorer's dataclasses (``mapping.MappedPair``,
``metrics.Scores``, ``mapping.inference.CandidateInference``) happen here,
once, in :class:`ComparisonRecord`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import networkx as nx

from dri.errors import ProjectError, one_line
from dri.graphs import NotAGraph, check_graph_json, from_json
from dri.literal import printable, storable, storable_json
from dri.metrics.scores import COUNT_NAMES, MAPPING_SECONDS, SCORE_NAMES

__all__ = [
    "ARGUMENT_FIELDS",
    "INFERENCE_FIELDS",
    "PAIR_FIELDS",
    "STORED_SCORES",
    "Analogue",
    "ComparisonRecord",
    "DamagedRow",
    "DocumentRecord",
    "EvaluationRecord",
    "MembersDropped",
    "RunRecord",
    "StoreError",
    "StoreUnavailable",
    "checked_graph",
    "merged_meta",
    "redact",
    "register_secret",
    "stored_graph",
    "stored_inference",
    "stored_json",
    "stored_number",
    "stored_pair",
    "stored_scores",
    "stored_text",
]

#: The scores the store keeps as columns (SQLite) and properties (Neo4j), for
#: ranking and queries: part of its schema. Every score of
#: :data:`metrics.scores.SCORE_NAMES` is kept in the comparison's ``scores``.
STORED_SCORES = tuple(
    name
    for name in SCORE_NAMES
    if name in {"analogy_similarity", "semantic", "jaccard", "conceptual", "relational"}
)
#: ``loose`` and ``evidence`` are None in a pair stored before the stores kept them.
PAIR_FIELDS = (
    "source",
    "target",
    "kind",
    "source_lemma",
    "target_lemma",
    "lin",
    "generic",
    "loose",
    "evidence",
)
#: A stored candidate inference (``CandidateInference.to_dict()`` without its anchors).
INFERENCE_FIELDS = (
    "source_relation",
    "lemma",
    "order",
    "text",
    "source_text",
    "support",
    "extrapolation",
    "arguments",
)
#: Each of its arguments; ``target`` and ``target_lemma`` are None for a new entity.
ARGUMENT_FIELDS = (
    "role",
    "kind",
    "source",
    "source_lemma",
    "target",
    "target_lemma",
    "phrase",
    "source_phrase",
)

# Graph attributes that become fields of the document record; everything else
# the graph carries is kept too, but only in the stored graph itself.
DOCUMENT_FIELDS = ("doc_id", "graph_id", "name", "path", "kind", "extractor_version", "title")
# Meta keys a caller may not use to overwrite a document's identity.
RESERVED_META = frozenset({"id", "doc_id", "graph_id", "graph_ids", "graph", "meta", "corpora"})


class StoreError(ProjectError, RuntimeError):
    """A store operation failed. ``str()`` is one line naming the store
    (the Neo4j URI without credentials, or the SQLite file) and the reason.

    Any secret registered with :func:`register_secret` (the Neo4j password,
    the user info of a URI) is replaced by ``***`` in both parts, so a
    driver message that quotes the URI cannot leak it."""

    def __init__(self, where: str, reason: str):
        # A line break in a file name is shown escaped, as file names are elsewhere.
        self.where = redact(printable(str(where)))
        self.reason = redact(one_line(str(reason)))
        super().__init__(f"{self.where}: {self.reason}")

    def __reduce__(self) -> tuple[type[StoreError], tuple[str, str]]:
        # Crosses process boundaries (flow workers) as itself, not as a RuntimeError.
        return (type(self), (self.where, self.reason))


class StoreUnavailable(StoreError):
    """The server refused the first connection, did not answer within the
    retry window, or is known to be down in this process: the caller should
    stop sending it work."""

    advice = (
        "the store cannot be used: start it (the project's own server: bash scripts/neo4j start) "
        "or fix its address (NEO4J_URI, or the command's --uri), then run the same command again; what was stored is kept and not redone"
    )


class DamagedRow(StoreError):
    """A row the store holds is not what the store wrote: a JSON column that
    is not JSON (or JSON of another shape), a number column holding text;
    edited by hand, or a disk fault. One line naming the store and the row,
    not the decoder's traceback (exit 70)."""

    advice = (
        "the store was changed outside dri; restore it from a copy, or move it away "
        "and run again (a new store is made)"
    )


def stored_json(where: str, what: str, text: Any, shape: type | tuple[type, ...] = dict) -> Any:
    """``text``, JSON that a store wrote into ``what`` (its table, row and
    column), read back: a :class:`DamagedRow` if it is not JSON of ``shape``."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError) as err:
        raise DamagedRow(where, f"damaged row: {what}: not JSON ({one_line(err)[:200]})") from None
    if not isinstance(value, shape):
        names = " or ".join(
            _JSON_NAMES.get(t, t.__name__) for t in (shape if isinstance(shape, tuple) else (shape,))
        )
        raise DamagedRow(
            where,
            f"damaged row: {what}: JSON {_JSON_NAMES.get(type(value), type(value).__name__)}, not {names}",
        )
    return value


def stored_text(where: str, what: str, value: Any) -> str:
    """A string a store wrote into ``what`` (a corpus's name), read back: a
    :class:`DamagedRow` if it is not one (NULL or a BLOB put there by hand was
    joined into ``dri store info``'s line: a TypeError, exit 70)."""
    if not isinstance(value, str):
        shown = "NULL" if value is None else f"{type(value).__name__} {str(value)[:40]}"
        raise DamagedRow(where, f"damaged row: {what}: {shown}, not text")
    return value


def stored_pair(where: str, what: str, pair: Mapping[str, Any]) -> dict[str, Any]:
    """A mapped pair as a store wrote it (:data:`PAIR_FIELDS`), read back: its
    names text, its ``lin`` a number, ``generic`` text or none, ``loose`` and
    ``evidence`` numbers or none (a pair stored before they were kept); a
    :class:`DamagedRow` naming the field otherwise (a BLOB put into ``kind``
    by hand was a TypeError of ``dri store mapping``, exit 70)."""
    out = {name: pair.get(name) for name in PAIR_FIELDS}
    for name in ("source", "target", "kind", "source_lemma", "target_lemma"):
        out[name] = stored_text(where, f"{what}, a pair's {name}", out[name])
    out["lin"] = stored_number(where, f"{what}, a pair's lin", out["lin"])
    if out["generic"] is not None:
        out["generic"] = stored_text(where, f"{what}, a pair's generic space", out["generic"])
    if out["loose"] is not None and out["loose"] not in (0, 1):  # Neo4j's bool, SQLite's 0/1
        raise DamagedRow(
            where, f"damaged row: {what}, a pair's loose: {str(out['loose'])[:40]!r} is not 0 or 1"
        )
    if out["evidence"] is not None:
        out["evidence"] = stored_number(where, f"{what}, a pair's evidence", out["evidence"])
    return out


def stored_number(where: str, what: str, value: Any) -> float:
    """A number a store wrote into ``what``, read back: a :class:`DamagedRow` if it is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DamagedRow(where, f"damaged row: {what}: {str(value)[:40]!r} is not a number")
    if not math.isfinite(value):  # 9e999 by hand: listed as inf, and int() of it an OverflowError
        raise DamagedRow(where, f"damaged row: {what}: {value!r} is not a finite number")
    return float(value)


def stored_scores(where: str, what: str, text: Any) -> dict[str, Any]:
    """A comparison's scores object as a store wrote it into ``what``: at least
    the scores kept as columns (properties), each a number; every other value a
    number or null (the ``message`` a text or null). A :class:`DamagedRow` if not."""
    scores: dict[str, Any] = stored_json(where, f"{what}, scores", text)
    for name in STORED_SCORES:
        stored_number(where, f"{what}, scores' {name}", scores.get(name))
    for name, value in scores.items():
        if value is not None and not (name == "message" and isinstance(value, str)):
            stored_number(where, f"{what}, scores' {name}", value)
    return scores


#: What every stored inference argument holds (the rest of ARGUMENT_FIELDS came later).
_ARGUMENT_KEYS = ("role", "source", "source_lemma", "target", "target_lemma")


def stored_inference(where: str, what: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """An inference of the comparison ``what`` names, as a store wrote its fields
    (``arguments`` as JSON text): a :class:`DamagedRow` if its arguments are not
    objects holding the argument's keys or its order, support or extrapolation
    is not a number (``CandidateInference.from_dict`` read them with int() and float())."""
    out = dict(fields)
    arguments = stored_json(where, f"{what}, an inference's arguments", fields.get("arguments") or "[]", list)
    if not all(isinstance(a, dict) and all(k in a for k in _ARGUMENT_KEYS) for a in arguments):
        raise DamagedRow(
            where, f"damaged row: {what}, an inference's arguments: not objects of {_ARGUMENT_KEYS}"
        )
    out["arguments"] = arguments
    for name in ("order", "support", "extrapolation"):
        if out.get(name) is not None:
            stored_number(where, f"{what}, an inference's {name}", out[name])
    return out


def merged_meta(text: Any) -> dict[str, Any]:
    """The meta a store holds (JSON text), to merge a new one into when it writes
    the row again: a damaged one is replaced by the new, not a failed document."""
    try:
        meta: dict[str, Any] = stored_json("", "meta", text)
    except DamagedRow:
        return {}
    return meta


def stored_graph(where: str, doc_id: str, text: Any) -> nx.DiGraph:
    """The graph of ``doc_id`` from the JSON a store kept of it (:func:`dri.graphs.to_json`'s
    shape, checked as a graph file is): a :class:`DamagedRow` if it is not one."""
    return checked_graph(where, doc_id, stored_json(where, f"the stored graph of document {doc_id}", text))


def checked_graph(where: str, doc_id: str, data: Any) -> nx.DiGraph:
    """:func:`stored_graph` of JSON already parsed (a store that keeps the graph in parts)."""
    try:
        check_graph_json(data)
    except NotAGraph as err:
        raise DamagedRow(where, f"damaged row: the stored graph of document {doc_id}: {err}") from None
    return from_json(data)


_JSON_NAMES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


@dataclass(frozen=True)
class DocumentRecord:
    """A stored document: who it is, where it came from and its corpora.

    ``meta`` holds what the caller passed to ``put_document`` (e.g. level,
    task, language); :meth:`Store.documents` gives the meta recorded for
    that corpus, the other methods the document's merged meta.
    """

    doc_id: str
    graph_id: str
    name: str
    path: str = ""
    kind: str = ""
    extractor_version: str = ""
    title: str = ""
    concepts: int = 0
    relations: int = 0
    corpora: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class ComparisonRecord:
    """One scored comparison of ``source_id`` with ``target_id`` in a run.

    ``scores`` may be given as a dict or as :class:`metrics.Scores`;
    ``pairs`` as dicts or :class:`mapping.MappedPair`; ``inferences`` as dicts
    or :class:`mapping.inference.CandidateInference`. All are normalised to
    plain dicts (scores: the five score fields plus the mapped counts;
    pairs: :data:`PAIR_FIELDS`; inferences: :data:`INFERENCE_FIELDS`), which is
    what the store gives back.
    """

    source_id: str
    target_id: str
    run_id: str
    params: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    created: str = ""
    #: The seconds :func:`metrics.compare` took on the pair, if recorded. Not a
    #: score: the backends keep it in the scores' JSON under
    #: :data:`metrics.scores.MAPPING_SECONDS` (:meth:`scores_to_store`) and give it
    #: back here, never in ``scores``; records differing only in it compare equal.
    mapping_seconds: float | None = field(default=None, compare=False)
    #: The comparison's candidate inferences, best support first (keyword).
    inferences: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.scores = normalise_scores(self.scores)
        kept = self.scores.pop(MAPPING_SECONDS, None)
        if self.mapping_seconds is None and isinstance(kept, (int, float)) and not isinstance(kept, bool):
            self.mapping_seconds = float(kept)
        self.pairs = [normalise_pair(p) for p in self.pairs]
        self.inferences = [normalise_inference(i) for i in self.inferences]
        self.params = dict(self.params or {})
        for name in ("source_id", "target_id", "run_id"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"ComparisonRecord.{name} must be a non-empty string")

    def scores_to_store(self) -> dict[str, Any]:
        """The scores as the backends write them: with ``mapping_seconds``, if known."""
        if self.mapping_seconds is None:
            return self.scores
        return {**self.scores, MAPPING_SECONDS: self.mapping_seconds}

    @property
    def key(self) -> str:
        """The comparison's identity, also the Neo4j ``Mapping.id``."""
        return json.dumps([self.source_id, self.target_id, self.run_id], ensure_ascii=False)


@dataclass(frozen=True)
class Analogue:
    """A document ranked by its best analogy similarity with another.

    ``direction`` is ``"out"`` when the asked-about document was the source
    of the comparison and ``"in"`` when it was the target.
    """

    doc_id: str
    name: str
    analogy_similarity: float  # the scores in the order of metrics.scores.SCORE_NAMES
    semantic: float
    jaccard: float
    conceptual: float
    relational: float
    run_id: str
    direction: str


@dataclass(frozen=True)
class RunRecord:
    """A run id with the number of comparisons stored under it and when."""

    run_id: str
    comparisons: int
    first: str
    last: str


@dataclass(frozen=True)
class MembersDropped:
    """What :meth:`Store.drop_members` removed."""

    members: int = 0  # memberships (corpus, name)
    comparisons: int = 0  # of the run, of the documents these members held
    documents: int = 0  # left in no corpus: gone with their graphs and every comparison


@dataclass(frozen=True)
class EvaluationRecord:
    """The rows of one evaluation (plagiarism, translation, analogy search)."""

    id: str
    kind: str
    corpus: str
    created: str
    rows: list[dict[str, Any]] = field(compare=False, hash=False)


# -- normalisation ---------------------------------------------------------------


def _as_mapping(value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"expected a dict or a dataclass, got {type(value).__name__}")


def normalise_scores(scores: Any) -> dict[str, Any]:
    raw = dict(_as_mapping(scores))
    out: dict[str, Any] = {name: float(raw.pop(name, 0.0) or 0.0) for name in STORED_SCORES}
    out.update({name: int(raw.pop(name, 0) or 0) for name in COUNT_NAMES})
    # Extra score fields (e.g. the scorer's message) are kept if JSON can hold them.
    out.update({k: v for k, v in raw.items() if v is None or isinstance(v, (str, int, float, bool))})
    return out


def normalise_pair(pair: Any) -> dict[str, Any]:
    raw = _as_mapping(pair)
    out = {name: raw.get(name) for name in PAIR_FIELDS}
    out["lin"] = float(out["lin"] or 0.0)
    for name in ("source", "target", "kind", "source_lemma", "target_lemma"):
        out[name] = "" if out[name] is None else str(out[name])
    out["generic"] = None if out["generic"] in (None, "") else str(out["generic"])
    out["loose"] = None if out["loose"] is None else bool(out["loose"])
    out["evidence"] = None if out["evidence"] is None else float(out["evidence"])
    return out


def normalise_inference(inference: Any) -> dict[str, Any]:
    raw = inference.to_dict() if hasattr(inference, "to_dict") else _as_mapping(inference)
    out = {name: raw.get(name) for name in INFERENCE_FIELDS}
    for name in ("source_relation", "lemma", "text", "source_text"):
        out[name] = "" if out[name] is None else str(out[name])
    out["order"] = int(out["order"] or 1)
    out["support"] = float(out["support"] or 0.0)
    out["extrapolation"] = float(out["extrapolation"] or 0.0)
    arguments = []
    for argument in out["arguments"] or []:
        arg = _as_mapping(argument)
        one = {name: arg.get(name) for name in ARGUMENT_FIELDS}
        for name in ("role", "kind", "source", "source_lemma", "phrase", "source_phrase"):
            one[name] = "" if one[name] is None else str(one[name])
        for name in ("target", "target_lemma"):
            one[name] = None if one[name] in (None, "") else str(one[name])
        arguments.append(one)
    out["arguments"] = arguments
    return out


def document_fields(graph: nx.DiGraph, meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """The document record's fields from a graph and the caller's meta."""
    attrs = graph.graph
    doc_id, graph_id = attrs.get("doc_id"), attrs.get("graph_id")
    if not doc_id or not isinstance(doc_id, str):
        raise ValueError("the graph has no doc_id attribute")
    if not graph_id:
        # A graph built without the extractor has no graph id; its content
        # is then identified by the document id and its version.
        graph_id = f"{doc_id}:{attrs.get('extractor_version', '')}"
    meta = dict(meta or {})
    fields = {
        "doc_id": doc_id,
        "graph_id": str(graph_id),
        "name": str(meta.get("name", attrs.get("name", "")) or ""),
        "path": str(meta.get("path", attrs.get("path", "")) or ""),
        "kind": str(attrs.get("kind", "") or ""),
        "extractor_version": str(attrs.get("extractor_version", "") or ""),
        "title": str(attrs.get("title", "") or ""),
        "concepts": sum(1 for _, t in graph.nodes(data="type") if t != "relation"),
        "relations": sum(1 for _, t in graph.nodes(data="type") if t == "relation"),
    }
    return fields


def member_name(fields: Mapping[str, Any]) -> str:
    """The name of a document's membership in a corpus: the name it was
    given there, else its id (a corpus never holds a nameless member)."""
    return str(fields.get("name") or fields["doc_id"])


def document_input(
    corpus: str, graph: nx.DiGraph, meta: Mapping[str, Any] | None, stored: Callable[[nx.DiGraph], Any]
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The checked input of ``Store.put_document``, the same for every backend:
    the document's fields, the caller's meta made JSON-safe, and what the
    backend keeps of the graph (``stored(graph)``) as JSON text. A bad corpus
    name, or a graph that cannot be JSON, is a :class:`ValueError` naming it."""
    if not isinstance(corpus, str) or not corpus:
        raise ValueError("corpus must be a non-empty string")
    fields = {k: storable(v) if isinstance(v, str) else v for k, v in document_fields(graph, meta).items()}
    clean = clean_meta(meta)
    try:
        text = storable_json(json.dumps(stored(graph), ensure_ascii=False))
    except (TypeError, ValueError) as err:
        raise ValueError(f"graph {fields['doc_id']} cannot be stored as JSON: {err}") from None
    return fields, clean, text


def clean_meta(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """The caller's meta as JSON-safe data (keys are strings)."""
    text = storable_json(json.dumps(dict(meta or {}), ensure_ascii=False, default=str))
    clean: dict[str, Any] = json.loads(text)
    return clean


def scalar_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The meta entries that can be plain properties (for Cypher and SQL
    filters such as ``d.level``); identity keys are left out."""
    return {
        k: v
        for k, v in meta.items()
        if k not in RESERVED_META and isinstance(v, (str, int, float, bool)) and k not in DOCUMENT_FIELDS
    }


def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key of extractor versions: ``1.10`` after ``1.9``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.\-+_]", version or ""))


# Secrets seen in this process (passwords, URI user info); see :func:`redact`.
_SECRETS: set[str] = set()
# Shorter strings would blank out ordinary words of a message.
_MIN_SECRET_CHARS = 4
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def register_secret(secret: str | None) -> None:
    """Remember ``secret`` so that :func:`redact` (and every :class:`StoreError`)
    hides it from then on in this process."""
    if secret and len(secret) >= _MIN_SECRET_CHARS:
        _SECRETS.add(secret)


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def safe_uri(uri: str) -> str:
    """``uri`` without user name and password, fit for messages and logs,
    whatever its shape: ``bolt://u:p@host:7687`` gives ``bolt://host:7687``
    and a malformed ``neo4j:p@host:7687`` (no ``//``) gives ``***@host:7687``."""
    if "@" in uri:
        scheme = _SCHEME.match(uri)
        userinfo, host = uri.rsplit("@", 1)
        userinfo = userinfo[scheme.end() :] if scheme else userinfo
        if ":" in userinfo:  # user:password; hide both spellings in later messages too
            register_secret(userinfo)
            register_secret(userinfo.split(":", 1)[1])
        uri = f"{scheme.group(0)}{host}" if scheme else f"***@{host}"
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        if ":" in host:  # an IPv6 address keeps its brackets: "bolt://::1:7790" is no URI
            host = f"[{host}]"
        if parts.port is not None:  # port 0 too: a message about it named the host alone
            host = f"{host}:{parts.port}"
    except ValueError:
        return redact(uri)
    if not parts.netloc:
        return redact(uri)
    return redact(urlunsplit((parts.scheme, host, parts.path, "", "")))
