"""Small in-memory ROS graphs and comparisons for the store tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from dri.graphs import add_triple, new_graph
from dri.store import ComparisonRecord

SOLAR = [("sun", "attract", "planet"), ("planet", "orbit", "sun"), ("sun", "heat", "planet")]
ATOM = [("nucleus", "attract", "electron"), ("electron", "orbit", "nucleus")]
WATER = [("pipe", "carry", "water"), ("pressure", "push", "water")]
HEAT = [("bar", "carry", "heat"), ("temperature", "push", "heat")]


def make_graph(
    doc_id: str, name: str, triples: Iterable[tuple[str, str, str]], version: str = "1.0", **attrs: Any
) -> nx.DiGraph:
    g = new_graph(
        doc_id,
        name=name,
        graph_id=f"{doc_id}-v{version}",
        extractor_version=version,
        path=f"/corpus/{name}",
        kind="text",
        title=name.title(),
        **attrs,
    )
    triples = list(triples)
    for i, (s, v, o) in enumerate(triples):
        add_triple(g, s, v, o, sentence=i, section="abstract" if i == 0 else "body")
    g.graph["sentences"] = len(triples)
    return g


def corpus_graphs() -> list[nx.DiGraph]:
    return [
        make_graph("solar", "solar.txt", SOLAR),
        make_graph("atom", "atom.txt", ATOM),
        make_graph("water", "water.txt", WATER),
        make_graph("heat", "heat.txt", HEAT),
    ]


def comparison(
    source: str,
    target: str,
    run_id: str,
    score: float,
    *,
    params: dict | None = None,
    pairs: list[dict] | None = None,
) -> ComparisonRecord:
    if pairs is None:
        pairs = [
            {
                "source": "c:a",
                "target": "c:b",
                "kind": "concept",
                "source_lemma": "a",
                "target_lemma": "b",
                "lin": score,
                "generic": "entity.n.01",
            },
            {
                "source": "r:0",
                "target": "r:0",
                "kind": "relation",
                "source_lemma": "attract",
                "target_lemma": "attract",
                "lin": 1.0,
                "generic": None,
            },
        ]
    return ComparisonRecord(
        source_id=source,
        target_id=target,
        run_id=run_id,
        params=params or {"run": run_id},
        scores={
            "analogy_similarity": score,
            "jaccard": score / 2,
            "semantic": 0.5,
            "conceptual": 0.4,
            "relational": 0.6,
            "mapped_concepts": 2,
            "mapped_relations": 1,
        },
        pairs=pairs,
    )


#: Reads of a store of the documents "solar" and "atom" in corpus "c", compared in
#: run "run-1", by the name the damaged-row tests give them (both backends).
READS: dict[str, Any] = {
    "top": lambda s: s.top_analogues("solar"),
    "comparison": lambda s: s.get_comparison("solar", "atom", "run-1"),
    "documents": lambda s: s.documents("c"),
    "document": lambda s: s.get_document("solar"),
    "graph": lambda s: s.get_graph("solar"),
    "evaluations": lambda s: s.evaluations(),
    "corpora": lambda s: s.corpora(),
}
