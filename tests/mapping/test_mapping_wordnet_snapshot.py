"""The WordNet tables' snapshot: used when current, ignored when stale or damaged."""

from __future__ import annotations

import pickle
from pathlib import Path

from dri.mapping.wordnet import WordNet, wordnet
from dri.mapping.wordnet_snapshot import load_snapshot

PAIRS = [("dog", "cat", "n"), ("car", "bicycle", "n"), ("run", "walk", "v"), ("heat", "warm", "v")]


def _linked_corpora(tmp_path: Path) -> Path:
    """A corpora folder of links to the real files, so the snapshot is written here."""
    real = wordnet().corpora
    corpora = tmp_path / "corpora"
    for folder in ("wordnet", "wordnet_ic"):
        (corpora / folder).mkdir(parents=True)
        for path in (real / folder).iterdir():
            if path.is_file() and not path.name.startswith("dri-tables"):
                (corpora / folder / path.name).symlink_to(path)
    return corpora


def _scores(wn: WordNet) -> list[float]:
    return [wn.lin(a, b, pos)[0] for a, b, pos in PAIRS]


def test_the_snapshot_gives_the_same_scores_as_the_files(tmp_path):
    corpora = _linked_corpora(tmp_path)
    read = WordNet.load(corpora)  # no snapshot yet: reads the files, saves one
    assert (corpora / "wordnet" / "dri-tables.pickle").is_file()
    assert load_snapshot(corpora) is not None
    loaded = WordNet.load(corpora)
    assert loaded.corpora == corpora
    assert _scores(loaded) == _scores(read) == _scores(WordNet(corpora))
    assert _scores(read)[0] > 0.5


def test_a_damaged_or_stale_snapshot_is_ignored_and_replaced(tmp_path):
    corpora = _linked_corpora(tmp_path)
    snapshot = corpora / "wordnet" / "dri-tables.pickle"
    expected = _scores(WordNet(corpora))
    snapshot.write_bytes(b"\x80\x05not a pickle")
    assert load_snapshot(corpora) is None
    assert _scores(WordNet.load(corpora)) == expected
    assert load_snapshot(corpora) is not None  # replaced by a good one
    saved = pickle.loads(snapshot.read_bytes())
    snapshot.write_bytes(pickle.dumps({**saved, "key": "another reader"}))
    assert load_snapshot(corpora) is None
    assert _scores(WordNet.load(corpora)) == expected


def test_a_snapshot_that_cannot_be_written_is_not_written_and_the_files_still_load(tmp_path):
    corpora = _linked_corpora(tmp_path)
    (corpora / "wordnet" / "dri-tables.pickle").mkdir()  # in the way of the write, even for root
    wn = WordNet.load(corpora)
    assert _scores(wn)[0] > 0.5
    assert load_snapshot(corpora) is None
    assert not [p for p in (corpora / "wordnet").iterdir() if p.name.startswith(".dri-tables")]


class _Calls:
    """A pickle that calls a function when loaded."""

    def __init__(self, ran: Path) -> None:
        self.ran = ran

    def __reduce__(self):
        return (Path.touch, (self.ran,))


def test_a_snapshot_that_would_call_a_function_is_not_loaded(tmp_path):
    # A pickle names any function to call: another user able to write into
    # DRI_NLTK_DATA ran their code in every dri process that mapped.
    corpora = _linked_corpora(tmp_path)
    WordNet.load(corpora)
    snapshot = corpora / "wordnet" / "dri-tables.pickle"
    saved = pickle.loads(snapshot.read_bytes())
    ran = tmp_path / "ran"
    snapshot.write_bytes(pickle.dumps({**saved, "tables": {**saved["tables"], "x": _Calls(ran)}}))
    assert load_snapshot(corpora) is None
    assert not ran.exists()
    assert _scores(WordNet.load(corpora))[0] > 0.5


def test_a_snapshot_of_other_tables_under_the_right_key_is_read_again(tmp_path):
    # {"key": <the right key>, "tables": {}} was an AttributeError at the first lookup: exit 70.
    corpora = _linked_corpora(tmp_path)
    WordNet.load(corpora)
    snapshot = corpora / "wordnet" / "dri-tables.pickle"
    saved = pickle.loads(snapshot.read_bytes())
    for tables in ({}, {**saved["tables"], "_index": 7}):
        snapshot.write_bytes(pickle.dumps({**saved, "tables": tables}))
        assert _scores(WordNet.load(corpora))[0] > 0.5
