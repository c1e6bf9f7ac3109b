"""Each relation's own clause from its sentence, its nouns and pronouns abstracted to roles.

EXPERIMENT (issue 27, item 4): "the army divided into small groups to attack the
fortress" gives ``attack`` the clause "someone divided into small something to
attack something". The graph keeps its text (the reader's sentences joined by
a space) and each relation its sentence ids; the text is split again with the
reader's splitter, and a graph whose sentences do not come back as many falls
back to the label clause (:func:`mapping.meaning.clause`).
"""

from __future__ import annotations

import re
from typing import Any

import networkx as nx

from dri.extract.sentences import split_sentences
from dri.graphs.ros import CONCEPT
from dri.mapping.meaning import clause

__all__ = ["clause_gate", "relation_clauses"]

_PERSON_WORDS = frozenset(
    "he she him her his hers himself herself they them their themselves who whom i me my we us our you your".split()
)
_DETERMINER = re.compile(
    r"\b(?:the|a|an|this|that|these|those|his|her|their|its|my|our|your|some|any)\s+(someone|something)\b",
    re.IGNORECASE,
)
_POSSESSED = re.compile(r"\bsomeone(?:'s)?\s+(something|someone)\b")
_SPACE = re.compile(r"\s+")


def _role(data: dict[str, Any]) -> str:
    if data.get("entity") == "PERSON" or data.get("wordnet_lemma") == "person":
        return "someone"
    if any(str(m).lower() in _PERSON_WORDS for m in data.get("mentions") or ()):
        return "someone"
    return "something"


def _pattern(mentions: list[str]) -> re.Pattern[str] | None:
    words = sorted({m for m in mentions if m.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])")


def _abstract(text: str, roles: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, role in roles:
        text = pattern.sub(role, text)
    text = _DETERMINER.sub(r"\1", text)
    text = _POSSESSED.sub(r"\1", text)  # "his assignments": someone something -> something
    return _SPACE.sub(" ", text).strip(" ,;:.")


def _span(sentence: str, subject: re.Pattern[str] | None, obj: re.Pattern[str] | None) -> str:
    """From the subject's first mention to the object's first mention after it (or the end)."""
    first = subject.search(sentence) if subject is not None else None
    start = first.start() if first else 0
    end = len(sentence)
    if obj is not None:
        after = obj.search(sentence, start) or obj.search(sentence)
        if after is not None:
            start, end = min(start, after.start()), max(after.end(), first.end() if first else 0)
    return sentence[start:end]


def relation_clauses(g: nx.DiGraph, relations: list[str], labels: list[str], mode: str = "span") -> list[str]:
    """The clause of every relation of ``relations`` (labels ``labels``), as above."""
    sentences = split_sentences(str(g.graph.get("text") or ""))
    if len(sentences) != g.graph.get("sentences"):
        return [clause(x) for x in labels]
    nodes = g.nodes
    by_sentence: dict[int, list[tuple[re.Pattern[str], str]]] = {}
    patterns: dict[str, re.Pattern[str] | None] = {}
    for n, data in nodes(data=True):
        if data.get("type") != CONCEPT or data.get("pos") != "n":
            continue
        pattern = patterns[n] = _pattern([str(m) for m in data.get("mentions") or ()])
        if pattern is None:
            continue
        for sid in data.get("sentences") or ():
            by_sentence.setdefault(int(sid), []).append((pattern, _role(data)))
    for roles in by_sentence.values():
        roles.sort(key=lambda x: -len(x[0].pattern))
    out = []
    for r, label in zip(relations, labels):
        data = nodes[r]
        ids = data.get("sentences") or ()
        if data.get("order", 1) == 2 or not ids or not 0 <= int(ids[0]) < len(sentences):
            out.append(clause(label))
            continue
        subject = obj = None
        for u, _, edge in g.in_edges(r, data="label"):
            if edge == "subj":
                subject = patterns.get(u)
        for _, v, edge in g.out_edges(r, data="label"):
            if edge == "obj":
                obj = patterns.get(v)
        sid = int(ids[0])
        span = sentences[sid] if mode == "sentence" else _span(sentences[sid], subject, obj)
        text = _abstract(span, by_sentence.get(sid, []))
        out.append(text or clause(label))
    return out


def _raw(g: nx.DiGraph, relations: list[str]) -> Any:
    import numpy as np

    from dri.mapping.content import sentence_vectors

    rows = sentence_vectors(g)
    out = np.zeros((len(relations), 384))
    if rows is None:
        return out
    for n, r in enumerate(relations):
        ids = g.nodes[r].get("sentences") or ()
        if ids and 0 <= int(ids[0]) < len(rows) and len(rows) == g.graph.get("sentences"):
            out[n] = rows[int(ids[0])]
    return out


def clause_gate(
    source: nx.DiGraph, target: nx.DiGraph, s: Any, t: Any, weight: float, mode: str = "span"
) -> list[list[float]]:
    """1 - weight + weight x the rescaled cosine of every source relation's own clause
    with every target relation's; 1 where either relation is of order 2."""
    import numpy as np

    from dri.mapping.meaning import UNRELATED, text_vectors

    if mode == "raw":
        vs, vt = _raw(source, s.relations), _raw(target, t.relations)
    else:
        vs = text_vectors(relation_clauses(source, s.relations, s.rel_lemma, mode)).astype(np.float64)
        vt = text_vectors(relation_clauses(target, t.relations, t.rel_lemma, mode)).astype(np.float64)
    if not len(vs) or not len(vt):
        return [[1.0] * len(vt) for _ in range(len(vs))]
    own = np.clip((vs @ vt.T - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0)
    gate = 1.0 - weight + weight * own
    gate[np.array(s.order) != 1, :] = 1.0
    gate[:, np.array(t.order) != 1] = 1.0
    return gate.tolist()
