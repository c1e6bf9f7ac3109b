"""Relation labels' clause vectors kept on disk: read back exactly, and never an error."""

from __future__ import annotations

import numpy as np
import pytest

from dri.mapping import meaning
from dri.mapping.clause_cache import ClauseCache
from dri.mapping.encoder import DIMENSION, MODEL_SHA256, sentence_encoder


def _row(seed: int) -> np.ndarray:
    row = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
    return row / np.linalg.norm(row)


def test_a_kept_vector_is_read_back_bit_for_bit_by_another_process(tmp_path) -> None:
    path = tmp_path / "cache" / "clause-vectors.sqlite"
    ClauseCache(path, MODEL_SHA256, DIMENSION).put({"someone orbit something": _row(1)})
    later = ClauseCache(path, MODEL_SHA256, DIMENSION)  # as a later process opens it
    found = later.get(["someone orbit something", "someone sing something"])
    assert list(found) == ["someone orbit something"]
    assert found["someone orbit something"].tobytes() == _row(1).tobytes()
    # Another model's vectors are not this one's.
    assert ClauseCache(path, "another-model", DIMENSION).get(["someone orbit something"]) == {}


def test_a_damaged_or_unusable_file_is_only_a_miss(tmp_path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00not a database\xff" * 100)
    cache = ClauseCache(junk, MODEL_SHA256, DIMENSION)
    assert cache.get(["someone orbit something"]) == {}
    cache.put({"someone orbit something": _row(1)})  # no error either
    assert junk.read_bytes().startswith(b"\x00not a database")  # left as it was
    (tmp_path / "file").write_text("a file where the folder should be")
    blocked = ClauseCache(tmp_path / "file" / "clause-vectors.sqlite", MODEL_SHA256, DIMENSION)
    blocked.put({"someone orbit something": _row(1)})
    assert blocked.get(["someone orbit something"]) == {}
    # A row of the wrong width is a miss, not a vector.
    path = tmp_path / "short.sqlite"
    ClauseCache(path, MODEL_SHA256, DIMENSION).put({"x": _row(2)})
    assert ClauseCache(path, MODEL_SHA256, DIMENSION // 2).get(["x"]) == {}


def test_a_row_of_junk_of_the_right_width_is_a_miss(tmp_path) -> None:
    # NaN or huge values read back as vectors changed dri compare's scores silently (exit 0).
    import sqlite3

    path = tmp_path / "cache.sqlite"
    cache = ClauseCache(path, MODEL_SHA256, DIMENSION)
    cache.put({"a": _row(1), "b": _row(2), "c": _row(3), "kept": _row(4), "zero": np.zeros(DIMENSION)})
    junk = {
        "a": np.full(DIMENSION, np.nan, dtype="<f4"),
        "b": np.full(DIMENSION, 3e38, dtype="<f4"),
        "c": _row(3) * 2,  # not of unit length
    }
    with sqlite3.connect(path) as db:
        for clause, vector in junk.items():
            db.execute("UPDATE clauses SET vector = ? WHERE clause = ?", (vector.tobytes(), clause))
    found = ClauseCache(path, MODEL_SHA256, DIMENSION).get(["a", "b", "c", "kept", "zero"])
    assert sorted(found) == ["kept", "zero"]


def test_a_clause_has_the_same_vector_alone_and_in_any_batch() -> None:
    # What makes a kept vector exact: whichever batch encoded it, the bits are the same.
    labels = ["attract", "revolve_around", "push_into", "split_into_small_group", "heat", "sing", "be"]
    clauses = [meaning.clause(x) for x in labels]
    encoder = sentence_encoder()
    together = encoder.encode(clauses)
    for n, text in enumerate(clauses):
        assert encoder.encode([text])[0].tobytes() == together[n].tobytes(), text
    assert encoder.encode(clauses[::-1])[::-1].tobytes() == together.tobytes()


def test_labels_encoded_by_one_process_are_not_encoded_by_the_next(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    encoder = sentence_encoder()
    monkeypatch.setattr(meaning, "_VECTORS", {})
    first = meaning.meaning_matrix(["revolve_around", "divide"], ["orbit", "split", "cause"])
    monkeypatch.setattr(meaning, "_VECTORS", {})  # a new process: nothing in memory
    runs: list[int] = []
    monkeypatch.setattr(
        encoder, "_run", lambda sequences: runs.append(len(sequences)) or pytest.fail("encoded")
    )
    again = meaning.meaning_matrix(["revolve_around", "divide"], ["orbit", "split", "cause"])
    assert runs == [] and np.array_equal(first, again)
    assert again[0, 2] == 0.0 and again[1, 2] == 0.0  # "cause" by identity only, never encoded


def test_an_encoder_that_only_reads_stored_vectors_starts_no_model(monkeypatch) -> None:
    from dri.mapping.encoder import SentenceEncoder

    encoder = SentenceEncoder()
    encoder.remember_document("The sun attracts the planets.", _row(3))
    assert np.allclose(encoder.encode_document("The sun  attracts the planets."), _row(3), atol=1e-6)
    assert encoder._session is None  # made only when the model first runs
    encoder.encode(["The nucleus attracts the electrons."])
    assert encoder._session is not None
