"""Comparisons in Neo4j: each one a Mapping node linked to its two
documents, with a SIMILAR relationship between them carrying the scores,
its Pair nodes linked to the mapped Concept/Relation nodes and their
Generic concepts, and its Inference nodes (candidate inferences) linked to
the source relation they carry over and to the target nodes they are about;
the analogues of a document ranked by their scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from dri.store.base import check_k, now, to_json_text
from dri.store.neo4j_store.connection import Neo4jConnection
from dri.store.records import (
    INFERENCE_FIELDS,
    STORED_SCORES,
    Analogue,
    ComparisonRecord,
    RunRecord,
    StoreError,
    stored_inference,
    stored_json,
    stored_number,
    stored_pair,
    stored_scores,
)

__all__ = ["Neo4jComparisons", "delete_comparisons"]


def delete_comparisons(tx: Any, doc_ids: list[str], run_id: str | None) -> int:
    """Delete the comparisons (of run ``run_id``; of every run if ``None``) in
    which any of ``doc_ids`` is source or target, with their pairs and
    inferences; how many went. Inside a write transaction."""
    in_run, mapping_in_run = (
        ("r.run_id = $run AND ", "m.run_id = $run AND ") if run_id is not None else ("", "")
    )
    tx.run(
        f"MATCH (s:Document)-[r:SIMILAR]->(t:Document) WHERE {in_run}(s.id IN $ids OR t.id IN $ids) DELETE r",
        run=run_id,
        ids=doc_ids,
    ).consume()
    row = tx.run(
        f"MATCH (m:Mapping) WHERE {mapping_in_run}(m.source_id IN $ids OR m.target_id IN $ids) "
        "OPTIONAL MATCH (m)-[:HAS_PAIR|SUGGESTS]->(part) "
        "WITH m, collect(part) AS parts FOREACH (p IN parts | DETACH DELETE p) "
        "DETACH DELETE m RETURN count(*) AS n",
        run=run_id,
        ids=doc_ids,
    ).single()
    # A generic concept no mapped pair names any more goes too.
    tx.run("MATCH (g:Generic) WHERE NOT (g)<-[:GENERIC]-() DELETE g").consume()
    return int(row["n"]) if row else 0


class Neo4jComparisons(Neo4jConnection):
    """Writing and reading comparisons, runs and analogues."""

    def put_comparison(self, result: ComparisonRecord) -> None:
        self.put_comparisons([result])

    def put_comparisons(self, results: Sequence[ComparisonRecord]) -> None:
        def work(tx: Any) -> None:
            for result in results:
                self._write_comparison(tx, result)

        self._write(work)

    def drop_comparisons(self, run_id: str, doc_ids: Iterable[str]) -> int:
        ids = sorted(set(doc_ids))
        if not ids:
            return 0
        return int(self._write(lambda tx: delete_comparisons(tx, ids, run_id)))

    def stored_pairs(self, pairs: Sequence[tuple[str, str]], run_id: str) -> set[tuple[str, str]]:
        keys = {ComparisonRecord(s, t, run_id).key: (s, t) for s, t in pairs}
        rows = self._read("MATCH (m:Mapping) WHERE m.id IN $ids RETURN m.id AS id", ids=list(keys))
        return {keys[r["id"]] for r in rows}

    def _write_comparison(self, tx: Any, result: ComparisonRecord) -> None:
        pairs = [{"id": f"{result.key}#{i}", "idx": i, **p} for i, p in enumerate(result.pairs)]
        self._write_mapping(tx, result, len(pairs))
        self._write_pairs(tx, result, pairs)
        self._write_inferences(tx, result)

    def _write_mapping(self, tx: Any, result: ComparisonRecord, npairs: int) -> None:
        """The Mapping node with its scores, linked to both documents, and their SIMILAR relationship."""
        mapping_id = result.key
        scores = {f: result.scores[f] for f in STORED_SCORES}
        scores.update(
            mapped_concepts=result.scores.get("mapped_concepts", 0),
            mapped_relations=result.scores.get("mapped_relations", 0),
        )
        created = result.created or now()

        found = tx.run(
            "MATCH (s:Document {id: $source}) MATCH (t:Document {id: $target}) "
            "MERGE (m:Mapping {id: $mid}) "
            "ON CREATE SET m.created = $created "
            "SET m += $scores, m.source_id = $source, m.target_id = $target, m.run_id = $run, "
            "    m.params = $params, m.scores = $scores_json, m.pairs = $npairs "
            "MERGE (m)-[:SOURCE]->(s) MERGE (m)-[:TARGET]->(t) "
            "MERGE (s)-[r:SIMILAR {run_id: $run}]->(t) "
            "ON CREATE SET r.created = $created "
            "SET r += $scores, r.params = $params, r.mapping_id = $mid "
            "RETURN count(*) AS n",
            source=result.source_id,
            target=result.target_id,
            run=result.run_id,
            mid=mapping_id,
            scores=scores,
            scores_json=to_json_text(result.scores_to_store()),
            params=to_json_text(result.params),
            npairs=npairs,
            created=created,
        ).single()
        if not found or not found["n"]:
            missing = [
                d
                for d in (result.source_id, result.target_id)
                if tx.run("MATCH (d:Document {id: $id}) RETURN 1", id=d).single() is None
            ]
            raise StoreError(
                self.location,
                f"comparison of unknown document "
                f"{missing[0] if missing else result.source_id} "
                f"(store the documents first)",
            )

    def _write_pairs(self, tx: Any, result: ComparisonRecord, pairs: list[dict[str, Any]]) -> None:
        """The mapping's Pair nodes, linked to the mapped Concept/Relation nodes and their Generic."""
        mapping_id = result.key
        tx.run(
            "MATCH (:Mapping {id: $mid})-[:HAS_PAIR]->(p:Pair) WHERE p.idx >= $n DETACH DELETE p",
            mid=mapping_id,
            n=len(pairs),
        ).consume()
        self._unwind(
            tx,
            "MATCH (m:Mapping {id: $mid}) UNWIND $rows AS row "
            "MERGE (p:Pair {id: row.id}) "
            "SET p.idx = row.idx, p.kind = row.kind, p.source = row.source, p.target = row.target, "
            "    p.source_lemma = row.source_lemma, p.target_lemma = row.target_lemma, p.lin = row.lin, "
            "    p.generic = row.generic, p.loose = row.loose, p.evidence = row.evidence, "
            "    p.run_id = $run, p.source_id = $source, p.target_id = $target "
            "MERGE (m)-[:HAS_PAIR]->(p)",
            pairs,
            mid=mapping_id,
            run=result.run_id,
            source=result.source_id,
            target=result.target_id,
        )
        for label, kind in (("Concept", "concept"), ("Relation", "relation")):
            self._unwind(
                tx,
                f"UNWIND $rows AS row MATCH (p:Pair {{id: row.id}}) "
                f"OPTIONAL MATCH (x:{label} {{doc_id: $source, key: row.source}}) "
                f"OPTIONAL MATCH (y:{label} {{doc_id: $target, key: row.target}}) "
                "FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END | MERGE (p)-[:SOURCE]->(x)) "
                "FOREACH (_ IN CASE WHEN y IS NULL THEN [] ELSE [1] END | MERGE (p)-[:TARGET]->(y))",
                [p for p in pairs if p["kind"] == kind],
                source=result.source_id,
                target=result.target_id,
            )
        self._unwind(
            tx,
            "UNWIND $rows AS row MATCH (p:Pair {id: row.id}) "
            "OPTIONAL MATCH (p)-[old:GENERIC]->() DELETE old "
            "WITH p, row WHERE row.generic IS NOT NULL "
            "MERGE (g:Generic {name: row.generic}) MERGE (p)-[:GENERIC]->(g)",
            pairs,
        )

    def _write_inferences(self, tx: Any, result: ComparisonRecord) -> None:
        """The mapping's Inference nodes: ``(Mapping)-[:SUGGESTS]->(Inference)``, each
        ``-[:FROM_RELATION]->`` the source relation it carries over and ``-[:ABOUT {role}]->``
        the target concepts or relations its mapped arguments become."""
        mapping_id = result.key
        rows = [
            {
                "id": f"{mapping_id}#i{i}",
                "idx": i,
                **{f: x[f] for f in INFERENCE_FIELDS if f != "arguments"},
                "arguments": to_json_text(x["arguments"]),
                "about": [
                    {
                        "role": a["role"],
                        "target": a["target"],
                        "label": "Relation" if a["kind"] == "relation" else "Concept",
                    }
                    for a in x["arguments"]
                    if a["target"] is not None
                ],
            }
            for i, x in enumerate(result.inferences)
        ]
        tx.run(
            "MATCH (:Mapping {id: $mid})-[:SUGGESTS]->(i:Inference) WHERE i.idx >= $n DETACH DELETE i",
            mid=mapping_id,
            n=len(rows),
        ).consume()
        self._unwind(
            tx,
            "MATCH (m:Mapping {id: $mid}) UNWIND $rows AS row "
            "MERGE (i:Inference {id: row.id}) "
            "SET i.idx = row.idx, i.source_relation = row.source_relation, i.lemma = row.lemma, "
            "    i.order = row.order, i.text = row.text, i.source_text = row.source_text, "
            "    i.support = row.support, i.extrapolation = row.extrapolation, i.arguments = row.arguments, "
            "    i.run_id = $run, i.source_id = $source, i.target_id = $target "
            "MERGE (m)-[:SUGGESTS]->(i) "
            "WITH i, row OPTIONAL MATCH (i)-[old:FROM_RELATION|ABOUT]->() DELETE old "
            "WITH DISTINCT i, row "
            "OPTIONAL MATCH (r:Relation {doc_id: $source, key: row.source_relation}) "
            "FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | MERGE (i)-[:FROM_RELATION]->(r)) "
            "WITH i, row UNWIND row.about AS about "
            "OPTIONAL MATCH (c:Concept {doc_id: $target, key: about.target}) WHERE about.label = 'Concept' "
            "OPTIONAL MATCH (q:Relation {doc_id: $target, key: about.target}) WHERE about.label = 'Relation' "
            "WITH i, about, coalesce(c, q) AS x "
            "FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END | "
            "    MERGE (i)-[:ABOUT {role: about.role}]->(x))",
            rows,
            mid=mapping_id,
            run=result.run_id,
            source=result.source_id,
            target=result.target_id,
        )

    def has_comparison(self, source_id: str, target_id: str, run_id: str) -> bool:
        key = ComparisonRecord(source_id, target_id, run_id).key
        return bool(self._read("MATCH (m:Mapping {id: $id}) RETURN 1 LIMIT 1", id=key))

    def _comparisons(self, where: str, pairs: bool, **params: Any) -> list[ComparisonRecord]:
        rows = self._read(
            f"MATCH (m:Mapping) WHERE {where} "
            "RETURN m.id AS id, m.source_id AS source_id, m.target_id AS target_id, m.run_id AS run_id, "
            "m.params AS params, m.scores AS scores, m.created AS created, "
            + (
                "COLLECT { MATCH (m)-[:HAS_PAIR]->(p:Pair) RETURN p ORDER BY p.idx } AS pairs, "
                "COLLECT { MATCH (m)-[:SUGGESTS]->(i:Inference) RETURN i ORDER BY i.idx } AS inferences "
                if pairs
                else "[] AS pairs, [] AS inferences "
            )
            + "ORDER BY source_id, target_id, run_id",
            **params,
        )
        return [self._record(r) for r in rows]

    def _record(self, r: Any) -> ComparisonRecord:
        """A comparison from its row; a damaged one is a :class:`DamagedRow` naming it."""
        what = f"the comparison of {r['source_id']} and {r['target_id']} in run {r['run_id']}"
        return ComparisonRecord(
            r["source_id"],
            r["target_id"],
            r["run_id"],
            stored_json(self.location, f"{what}, params", r["params"] or "{}"),
            stored_scores(self.location, what, r["scores"] or "{}"),
            [stored_pair(self.location, what, p) for p in r["pairs"]],
            r["created"] or "",
            inferences=[
                stored_inference(self.location, what, {f: i.get(f) for f in INFERENCE_FIELDS})
                for i in r["inferences"]
            ],
        )

    def get_comparison(self, source_id: str, target_id: str, run_id: str) -> ComparisonRecord | None:
        key = ComparisonRecord(source_id, target_id, run_id).key
        found = self._comparisons("m.id = $id", True, id=key)
        return found[0] if found else None

    def comparisons(
        self, run_id: str | None = None, corpus: str | None = None, *, pairs: bool = False
    ) -> list[ComparisonRecord]:
        return self._comparisons(
            "($run IS NULL OR m.run_id = $run) AND ($corpus IS NULL OR ("
            " EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(:Document {id: m.source_id}) } AND"
            " EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(:Document {id: m.target_id}) }))",
            pairs,
            run=run_id,
            corpus=corpus,
        )

    TOP_ANALOGUES = (
        "MATCH (d:Document {id: $id})-[r:SIMILAR]-(o:Document) "
        "WHERE o.id <> $id AND ($run IS NULL OR r.run_id = $run) "
        "WITH o, r, CASE WHEN startNode(r) = d THEN 'out' ELSE 'in' END AS direction "
        "ORDER BY r.analogy_similarity DESC, r.run_id ASC, direction DESC "
        "WITH o, collect({r: r, direction: direction})[0] AS best "
        "RETURN o.id AS doc_id, coalesce(o.name, '') AS name, "
        "best.r.analogy_similarity AS analogy_similarity, best.r.jaccard AS jaccard, "
        "best.r.semantic AS semantic, best.r.conceptual AS conceptual, best.r.relational AS relational, "
        "best.r.run_id AS run_id, best.direction AS direction "
        "ORDER BY analogy_similarity DESC, name ASC, doc_id ASC LIMIT $k"
    )

    def top_analogues(self, doc_id: str, k: int = 10, run_id: str | None = None) -> list[Analogue]:
        rows = self._read(self.TOP_ANALOGUES, id=doc_id, run=run_id, k=check_k(k))
        return [Analogue(**self._analogue_row(doc_id, dict(r))) for r in rows]

    def _analogue_row(self, doc_id: str, row: dict[str, Any]) -> dict[str, Any]:
        """A row of :meth:`top_analogues` with its scores checked to be numbers."""
        what = f"the comparison of {doc_id} and {row['doc_id']} in run {row['run_id']}"
        return {**row, **{f: stored_number(self.location, f"{what}, {f}", row[f]) for f in STORED_SCORES}}

    def runs(self) -> list[RunRecord]:
        rows = self._read(
            "MATCH (m:Mapping) WITH m.run_id AS run_id, count(*) AS n, min(m.created) AS first, "
            "max(m.created) AS last RETURN run_id, n, first, last ORDER BY first, run_id"
        )
        return [RunRecord(r["run_id"], r["n"], r["first"] or "", r["last"] or "") for r in rows]
