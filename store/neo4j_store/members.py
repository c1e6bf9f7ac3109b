"""Memberships in Neo4j that end: the files a corpus folder no longer has.

:meth:`Neo4jMembers.drop_members` removes the ``CONTAINS`` relationships
with what only they kept alive (see :meth:`dri.store.Store.drop_members`),
in one transaction; :meth:`Neo4jMembers.drop_unheld` the documents a
corpus's new contents left in no corpus.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dri.literal import storable
from dri.store.base import to_json_text
from dri.store.neo4j_store.comparisons import delete_comparisons
from dri.store.neo4j_store.connection import Neo4jConnection
from dri.store.records import MembersDropped, merged_meta

__all__ = ["Neo4jMembers", "settle_name"]


class Neo4jMembers(Neo4jConnection):
    """Removing corpus memberships."""

    def drop_members(self, corpus: str, names: Iterable[str], run_id: str) -> MembersDropped:
        corpus, wanted = storable(corpus), sorted({storable(n) for n in names})  # as they are stored
        if not wanted:
            return MembersDropped()

        def work(tx: Any) -> MembersDropped:
            rows = tx.run(
                "MATCH (:Corpus {name: $corpus})-[m:CONTAINS]->(d:Document) WHERE m.name IN $names "
                "WITH d, m, m.name AS name DELETE m RETURN d.id AS id, collect(name) AS names",
                corpus=corpus,
                names=wanted,
            )
            held = {r["id"]: set(r["names"]) for r in rows}
            ids = sorted(held)
            comparisons = delete_comparisons(tx, ids, run_id) if ids else 0
            orphans, more = _drop_unheld(tx, ids)
            for doc_id in sorted(set(ids) - set(orphans)):
                _rename(tx, doc_id, held[doc_id], corpus)
            return MembersDropped(sum(len(n) for n in held.values()), comparisons + more, len(orphans))

        result: MembersDropped = self._write(work)
        return result

    def drop_unheld(self, doc_ids: Iterable[str]) -> MembersDropped:
        wanted = sorted(set(doc_ids))
        if not wanted:
            return MembersDropped()

        def work(tx: Any) -> MembersDropped:
            orphans, comparisons = _drop_unheld(tx, wanted)
            return MembersDropped(0, comparisons, len(orphans))

        result: MembersDropped = self._write(work)
        return result


def _drop_unheld(tx: Any, ids: list[str]) -> tuple[list[str], int]:
    """Remove those of ``ids`` that no corpus holds, with their graphs and every
    comparison; ``(their ids, comparisons removed)``."""
    orphans = [
        r["id"]
        for r in tx.run(
            "MATCH (d:Document) WHERE d.id IN $ids AND NOT EXISTS { MATCH ()-[:CONTAINS]->(d) } RETURN d.id AS id",
            ids=ids,
        )
    ]
    if not orphans:
        return [], 0
    comparisons = delete_comparisons(tx, orphans, None)
    tx.run(
        "MATCH (d:Document) WHERE d.id IN $ids "
        "CALL (d) { OPTIONAL MATCH (d)-[:HAS_NODE|HAS_GRAPH]->(n) DETACH DELETE n } "
        "DETACH DELETE d",
        ids=orphans,
    ).consume()
    return orphans, comparisons


def _rename(tx: Any, doc_id: str, gone: set[str], corpus: str) -> None:
    """A document named by a membership that went takes the name and path of
    one it keeps (of ``corpus`` first), so no listing shows a file that is gone."""
    _take_a_members_name(tx, doc_id, corpus, "d.name IN $gone", gone=sorted(gone))


def settle_name(tx: Any, doc_id: str, corpus: str) -> None:
    """A document whose own path no membership holds any more (two files that
    swapped names: each name now holds the other's content) takes the name
    and path of one it keeps (of ``corpus`` first): listed under its old
    name, a search showed a file as its own analogue, and its path named two
    documents."""
    _take_a_members_name(
        tx, doc_id, corpus, "NOT EXISTS { MATCH (:Corpus)-[held:CONTAINS]->(d) WHERE held.path = d.path }"
    )


def _take_a_members_name(tx: Any, doc_id: str, corpus: str, when: str, **params: Any) -> None:
    """Give ``doc_id``, if it is as ``when`` says, the name and path of one of its
    memberships (of ``corpus`` first)."""
    row = tx.run(
        f"MATCH (c:Corpus)-[m:CONTAINS]->(d:Document {{id: $id}}) WHERE {when} "
        "RETURN m.name AS name, m.path AS path, d.meta AS meta "
        "ORDER BY c.name <> $corpus, c.name, m.name LIMIT 1",
        id=doc_id,
        corpus=corpus,
        **params,
    ).single()
    if row is None:
        return
    meta = merged_meta(row["meta"]) if row["meta"] else {}  # a damaged one is written again whole
    meta.update({k: v for k, v in (("name", row["name"]), ("path", row["path"])) if k in meta})
    tx.run(
        "MATCH (d:Document {id: $id}) SET d.name = $name, d.path = $path, d.meta = $meta",
        id=doc_id,
        name=row["name"],
        path=row["path"],
        meta=to_json_text(meta),
    ).consume()
