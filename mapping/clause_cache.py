"""Relation labels' clause vectors kept between processes, in the data folder.

:mod:`mapping.meaning` embeds each relation label as a clause ("someone
push into something") with the sentence encoder. A clause's vector is the
same in every process: the model is pinned by its sha256
(:data:`mapping.encoder.MODEL_SHA256`), and a text's vector does not depend on
the batch it is encoded in (tested). So the vectors a process encodes are
kept in ``data/cache/clause-vectors.sqlite``, keyed by the model and the
clause text, and a later process reads them instead of starting the model:
a search's first result over stored documents, whose labels were encoded
when the documents were stored, then runs no model at all (0.6 s of CPU).

The file is a cache, never a source of truth (:mod:`dri.sqlite_cache`): a
folder that cannot be written, a full disk, a damaged file or a row of the
wrong size only means the labels are encoded again, as without it. Writers
in several processes at once are SQLite's WAL mode; a row is written once
(``INSERT OR IGNORE``).

>>> cache = ClauseCache(Path("/tmp/clause-vectors.sqlite"))      # doctest: +SKIP
>>> cache.put({"someone orbit something": vector})                # doctest: +SKIP
>>> cache.get(["someone orbit something"])                        # doctest: +SKIP
{'someone orbit something': array([...], dtype=float32)}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from dri.sqlite_cache import SqliteCache, in_data_folder

__all__ = ["ClauseCache", "clause_cache"]


#: Clauses asked for in one query (SQLite's limit on parameters is 32,766).
_CHUNK = 500

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS clauses "
    "(model TEXT NOT NULL, clause TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, clause))"
)


class ClauseCache:
    """Clause vectors of one model in one SQLite file; every failure is a miss."""

    def __init__(self, path: Path, model: str, dimension: int) -> None:
        self.path = path
        self.model = model
        self.dimension = dimension
        self._file = SqliteCache(path, _SCHEMA, name="clause vector cache")

    def get(self, clauses: Sequence[str]) -> dict[str, np.ndarray]:
        """The kept vectors of ``clauses`` (those not kept are left out)."""
        wanted = list(dict.fromkeys(clauses))

        def read(db: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                rows = db.execute(
                    f"SELECT clause, vector FROM clauses WHERE model = ? AND clause IN ({','.join('?' * len(chunk))})",
                    (self.model, *chunk),
                ).fetchall()
                for clause, blob in rows:
                    if isinstance(blob, bytes) and len(blob) == 4 * self.dimension:
                        vector = np.frombuffer(blob, dtype="<f4").copy()
                        if _is_kept_vector(vector):
                            found[clause] = vector
            return found

        return self._file.run(read, {})

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Keep ``vectors`` (clause -> float32 row); a failure is logged and forgotten."""
        if not vectors:
            return
        rows = [
            (self.model, clause, np.asarray(v, dtype="<f4").tobytes())
            for clause, v in vectors.items()
            if np.asarray(v).shape == (self.dimension,)
        ]

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.executemany("INSERT OR IGNORE INTO clauses (model, clause, vector) VALUES (?,?,?)", rows)

        self._file.run(write, None)


def _is_kept_vector(vector: np.ndarray) -> bool:
    """Whether ``vector`` is one the encoder makes: finite, of unit length (or zero).
    A row damaged since it was kept (junk bytes of the right length: NaN, huge
    values) is a miss; it changed the mapping's scores silently, with exit 0."""
    if not np.isfinite(vector).all():
        return False
    norm = float(np.linalg.norm(vector.astype(np.float64)))  # float64: 3e38 squared is no overflow
    return norm == 0.0 or abs(norm - 1.0) < 1e-3


def clause_cache() -> ClauseCache | None:
    """The process's cache in the data folder, or None if there is no data folder
    (:func:`dri.sqlite_cache.in_data_folder`)."""
    from dri.mapping.encoder import DIMENSION, MODEL_SHA256

    return in_data_folder("clause-vectors.sqlite", lambda path: ClauseCache(path, MODEL_SHA256, DIMENSION))
