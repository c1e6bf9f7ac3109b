"""metrics.tfidf gives scikit-learn's numbers bit for bit, without importing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer

from dri.metrics.tfidf import TfidfText, document_idf, hash_features, weigh

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"
EDGES = ["", "a b c", "Ünïcödé wörds ÄND Ünïcödé", "x1 x1 x1 2nd don't", "The the THE the."]


def _texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(DEMO.rglob("*.txt"))] + EDGES


def _same(a, b) -> bool:
    return (
        np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data, b.data)  # exact, not close
    )


def test_text_tfidf_is_tfidfvectorizer_exactly():
    texts = _texts()
    fitted = TfidfVectorizer(lowercase=True).fit(texts)
    mine = TfidfText.fit(texts)
    assert sorted(mine.vocabulary) == list(fitted.get_feature_names_out())
    assert np.array_equal(mine.idf, fitted.idf_)
    probe = [*texts[::3], "words outside the vocabulary: zyzzyva quux"]
    assert _same(mine.transform(probe), fitted.transform(probe))


def test_no_word_of_two_letters_is_refused_like_sklearn():
    for fit in (lambda t: TfidfVectorizer().fit(t), TfidfText.fit):
        try:
            fit(["a b", "", "1 2"])
        except ValueError as err:
            assert "empty vocabulary" in str(err)
        else:
            raise AssertionError("fitted on no words")


def test_hashed_features_are_featurehasher_exactly():
    rows = [{f"w:{w}": float(len(w)) for w in text.lower().split()} for text in _texts()]
    rows.append({"c:zero": 0.0, "m:subj": 2.0})
    for n, alternate in ((2**20, False), (512, True), (7, False)):  # 7 columns: many collisions
        theirs = FeatureHasher(n_features=n, input_type="dict", alternate_sign=alternate).transform(rows)
        assert _same(hash_features(rows, n, alternate_sign=alternate), theirs.tocsr())


def test_sublinear_weights_are_tfidftransformer_exactly():
    rows = [{f"w:{w}": 1.0 + i % 3 for i, w in enumerate(text.lower().split())} for text in _texts()]
    counts = hash_features(rows, 2**20)
    transformer = TfidfTransformer(sublinear_tf=True, norm="l2")
    theirs = transformer.fit_transform(counts).tocsr()
    assert np.array_equal(document_idf(counts), transformer.idf_)
    assert _same(weigh(counts, document_idf(counts), sublinear=True), theirs)


def test_the_store_and_the_baselines_do_not_import_sklearn():
    code = (
        "import sys; from dri.metrics.baselines import Baselines; from dri.store.vectors import VectorIndex; "
        "b = Baselines(['the cat sat', 'the dog ran']); b.score('the cat sat', 'the dog ran'); "
        "VectorIndex.build(['a', 'b'], [{'w:cat': 1.0}, {'w:dog': 2.0}]).query({'w:cat': 1.0}, 1); "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
