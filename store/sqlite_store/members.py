"""Memberships in SQLite that end: the files a corpus folder no longer has.

:meth:`SQLiteMembers.drop_members` removes them with what only they kept
alive (see :meth:`dri.store.Store.drop_members`), in one transaction;
:meth:`SQLiteMembers.drop_unheld` the documents a corpus's new contents left
in no corpus.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from dri.literal import storable
from dri.store.base import to_json_text
from dri.store.records import MembersDropped, merged_meta
from dri.store.sqlite_store.comparisons import delete_comparisons
from dri.store.sqlite_store.connection import SQLiteConnection

__all__ = ["SQLiteMembers", "settle_name"]


class SQLiteMembers(SQLiteConnection):
    """Removing corpus memberships."""

    def drop_members(self, corpus: str, names: Iterable[str], run_id: str) -> MembersDropped:
        corpus, wanted = storable(corpus), sorted({storable(n) for n in names})  # as they are stored
        if not wanted:
            return MembersDropped()
        with self._write() as db:
            held: dict[str, set[str]] = {}  # doc_id -> the names that went
            for start in range(0, len(wanted), 400):
                chunk = wanted[start : start + 400]
                marks = ", ".join("?" * len(chunk))
                where = f"corpus = ? AND name IN ({marks})"
                for name, doc_id in db.execute(
                    f"SELECT name, doc_id FROM members WHERE {where}", (corpus, *chunk)
                ):
                    held.setdefault(doc_id, set()).add(name)
                db.execute(f"DELETE FROM members WHERE {where}", (corpus, *chunk))
            comparisons = delete_comparisons(db, held, run_id)
            orphans, more = _drop_unheld(db, held)
            for doc_id in sorted(set(held) - set(orphans)):
                _rename(db, doc_id, held[doc_id], corpus)
        return MembersDropped(sum(len(n) for n in held.values()), comparisons + more, len(orphans))

    def drop_unheld(self, doc_ids: Iterable[str]) -> MembersDropped:
        wanted = sorted(set(doc_ids))
        if not wanted:
            return MembersDropped()
        with self._write() as db:
            orphans, comparisons = _drop_unheld(db, wanted)
        return MembersDropped(0, comparisons, len(orphans))


def _drop_unheld(db: sqlite3.Connection, doc_ids: Iterable[str]) -> tuple[list[str], int]:
    """Remove those of ``doc_ids`` that no corpus holds, with their graphs and every
    comparison; ``(their ids, comparisons removed)``."""
    orphans = [
        d
        for d in sorted(doc_ids)
        if not _member(db, "doc_id = ?", (d,))
        and db.execute("SELECT 1 FROM documents WHERE doc_id = ?", (d,)).fetchone() is not None
    ]
    comparisons = delete_comparisons(db, orphans, None)
    for doc_id in orphans:
        db.execute("DELETE FROM graphs WHERE doc_id = ?", (doc_id,))
        db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
    return orphans, comparisons


def _member(db: sqlite3.Connection, where: str, params: tuple[str, ...]) -> bool:
    return db.execute(f"SELECT 1 FROM members WHERE {where} LIMIT 1", params).fetchone() is not None


def _rename(db: sqlite3.Connection, doc_id: str, gone: set[str], corpus: str) -> None:
    """A document named by a membership that went takes the name and path of
    one it keeps (of ``corpus`` first), so no listing shows a file that is gone."""
    row = db.execute("SELECT name FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is not None and row[0] in gone:
        _take_a_members_name(db, doc_id, corpus)


def settle_name(db: sqlite3.Connection, doc_id: str, corpus: str) -> None:
    """A document whose own path no membership holds any more (two files that
    swapped names: each name now holds the other's content) takes the name
    and path of one it keeps (of ``corpus`` first): listed under its old
    name, a search showed a file as its own analogue, and its path named two
    documents."""
    row = db.execute("SELECT path FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is not None and not _member(db, "doc_id = ? AND path = ?", (doc_id, row[0])):
        _take_a_members_name(db, doc_id, corpus)


def _take_a_members_name(db: sqlite3.Connection, doc_id: str, corpus: str) -> None:
    """Give ``doc_id`` the name and path of one of its memberships (of ``corpus`` first), if any."""
    kept = db.execute(
        "SELECT name, path FROM members WHERE doc_id = ? ORDER BY corpus <> ?, corpus, name LIMIT 1",
        (doc_id, corpus),
    ).fetchone()
    row = db.execute("SELECT meta FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if kept is None or row is None:
        return
    name, path = kept
    meta = merged_meta(row[0])  # a damaged one is written again whole below
    meta.update({k: v for k, v in (("name", name), ("path", path)) if k in meta})
    db.execute(
        "UPDATE documents SET name = ?, path = ?, meta = ? WHERE doc_id = ?",
        (name, path, to_json_text(meta), doc_id),
    )
