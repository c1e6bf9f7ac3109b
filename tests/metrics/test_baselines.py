"""Text baselines on hand-checked examples."""

from __future__ import annotations

import math

import pytest

from dri.metrics.baselines import (
    BASELINE_NAMES,
    Baselines,
    chrf,
    chrf_many,
    encoder_cosines,
    fuzz_token,
    lcs_words,
    ngram_containment,
    tfidf_cosine,
    words,
)

SOURCE = "the cat sat on the mat and the dog sat on the log"
ANSWER = "the cat sat on the log"


def test_words_are_lower_case_tokens():
    assert words("The Cat's mat, isn't it? 42!") == ["the", "cat's", "mat", "isn't", "it", "42"]


def test_ngram_containment_by_hand():
    # Answer 3-grams: (the cat sat) (cat sat on) (sat on the) (on the log); all but
    # "on the log"... which the source has too ("sat on the log") -> 4 of 4.
    assert ngram_containment(SOURCE, ANSWER) == 1.0
    # "the cat ran on the log": (the cat ran) (cat ran on) (ran on the) (on the log) -> 1 of 4.
    assert ngram_containment(SOURCE, "the cat ran on the log") == pytest.approx(0.25)
    assert ngram_containment(SOURCE, "two words") == 0.0  # no 3-gram at all
    assert ngram_containment(SOURCE, "the cat sat", n=1) == 1.0


def test_lcs_normalised_by_answer_length():
    # LCS of "a b c d" in "a x b y d": a b d -> 3 of 4 words.
    assert lcs_words("a x b y d", "a b c d") == pytest.approx(0.75)
    assert lcs_words(SOURCE, ANSWER) == 1.0
    assert lcs_words("d c b a", "a b c d") == pytest.approx(0.25)
    assert lcs_words("", "a") == 0.0


def test_chrf_and_fuzz_bounds():
    assert chrf(SOURCE, SOURCE) == pytest.approx(1.0)
    assert chrf("aaaa bbbb", "xyz qrs") == pytest.approx(0.0)
    assert fuzz_token(SOURCE, SOURCE) == 1.0
    # token_sort_ratio ignores word order.
    assert fuzz_token("red green blue", "blue red green") == 1.0
    assert 0.0 < fuzz_token(SOURCE, ANSWER) < 1.0


def test_tfidf_cosine_pairwise_and_corpus_fitted():
    assert tfidf_cosine("apples and pears", "apples and pears") == pytest.approx(1.0)
    assert tfidf_cosine("apples", "pears") == 0.0
    assert tfidf_cosine("...", "a") == 0.0  # no token at all: empty vocabulary
    corpus = ["apples and pears", "apples and plums", "apples everywhere", "apples again"]
    # Fitted on a corpus where "apples" is everywhere, the shared word counts for less
    # than when only the two texts are seen.
    pair_only = tfidf_cosine("apples and pears", "apples and plums")
    fitted = tfidf_cosine("apples and pears", "apples and plums", corpus=corpus)
    assert 0 < fitted < pair_only < 1


def test_baselines_bundle_agrees_with_functions():
    texts = [SOURCE, ANSWER, "something else entirely"]
    b = Baselines(texts)
    scores = b.score(SOURCE, ANSWER)
    assert tuple(scores) == BASELINE_NAMES == b.names
    assert scores["ngram3_containment"] == ngram_containment(SOURCE, ANSWER)
    assert scores["lcs_words"] == lcs_words(SOURCE, ANSWER)
    assert scores["tfidf_cosine"] == pytest.approx(tfidf_cosine(SOURCE, ANSWER, corpus=texts))
    assert all(0.0 <= v <= 1.0 and not math.isnan(v) for v in scores.values())
    # Identical texts score (near) 1 on every baseline, unrelated ones lower.
    same = b.score(SOURCE, SOURCE)
    other = b.score(SOURCE, "something else entirely")
    assert all(same[k] == pytest.approx(1.0) for k in same)
    assert all(other[k] < same[k] for k in same)


def test_baselines_need_a_corpus():
    with pytest.raises(ValueError):
        Baselines([])


def _lcs_reference(s: list[str], a: list[str]) -> int:
    """The textbook dynamic programme, to check the C++ LCS against."""
    prev = [0] * (len(s) + 1)
    for wa in a:
        cur = [0]
        for j, ws in enumerate(s, start=1):
            cur.append(prev[j - 1] + 1 if wa == ws else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def test_lcs_words_agrees_with_the_dynamic_programme():
    import random

    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(12)]
    for _ in range(200):
        s = [rng.choice(vocab) for _ in range(rng.randint(0, 40))]
        a = [rng.choice(vocab) for _ in range(rng.randint(1, 40))]
        expected = _lcs_reference(s, a) / len(a) if s else 0.0
        assert lcs_words(" ".join(s), " ".join(a)) == pytest.approx(expected)


def test_score_many_equals_score_pair_by_pair():
    corpus = [SOURCE, ANSWER, "the dog sat on the mat", "an unrelated sentence entirely"]
    baselines = Baselines(corpus)
    pairs = [(SOURCE, ANSWER), (SOURCE, corpus[2]), (corpus[3], ANSWER), (SOURCE, ANSWER)]
    many = baselines.score_many(pairs)
    assert len(many) == 4 and many[0] == many[3]
    for (source, answer), row in zip(pairs, many):
        one = baselines.score(source, answer)
        assert row.keys() == one.keys() == set(BASELINE_NAMES)
        for name in BASELINE_NAMES:
            assert row[name] == pytest.approx(one[name])
        assert row["lcs_words"] == pytest.approx(lcs_words(source, answer))
        assert row["ngram3_containment"] == pytest.approx(ngram_containment(source, answer))
        assert row["fuzz_token"] == pytest.approx(fuzz_token(source, answer))
    assert baselines.score_many([]) == []


CHRF_CASES = [
    (SOURCE, ANSWER),
    (ANSWER, SOURCE),
    ("aaaa bbbb", "xyz qrs"),
    ("short", "a much longer hypothesis text"),
    ("a", "a b"),
    ("Übergröße café", "übergröße Café"),
    (SOURCE, SOURCE),
    ("", ""),  # empty: no n-gram on either side
    ("", "abc"),
    ("abc", ""),
    ("   ", " \t\n"),  # whitespace only: empty once whitespace is dropped
    ("x y", "   "),
    ("naïve café 東京", "naive cafe 東京都"),  # accents and CJK
    ("🙂🙃 emoji 🙂", "🙂 emoji"),  # outside the BMP
    ("e\u0301", "é"),  # combining accent against the precomposed letter: different code points
    ("a\u00a0b\u3000c", "abc"),  # no-break and ideographic spaces are whitespace to str.split
    ("a\u200bb", "ab"),  # a zero-width space is not
    ("a\ud800b", "ab"),  # a lone surrogate, which a Python str can hold
    ("xxxxxxx", "xxx"),  # repeated n-grams: matches are clipped counts
    ("ab", "abababab"),
]


@pytest.mark.parametrize(("source", "answer"), CHRF_CASES)
def test_chrf_many_equals_sacrebleu_on_each_case(source: str, answer: str):
    # Exact equality, not approx: the same counts through the same float operations.
    assert chrf_many([(source, answer)]) == [chrf(source, answer)]


def test_chrf_many_equals_sacrebleu_on_many_pairs_at_once():
    import random

    rng = random.Random(11)
    alphabet = "ab cdé東\t🙂\n"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(40)]
    pairs = [(rng.choice(texts), rng.choice(texts)) for _ in range(150)] + CHRF_CASES
    assert chrf_many(pairs) == [chrf(s, a) for s, a in pairs]
    assert chrf_many([]) == []


def test_containment_in_score_many_equals_the_pairwise_function():
    import random

    rng = random.Random(5)
    vocab = ["the", "cat", "sat", "on", "mat", "dog", "Log", "’tis", "it's"]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 12))) for _ in range(30)] + [
        "",
        "one two",
    ]
    pairs = [(rng.choice(texts), rng.choice(texts)) for _ in range(120)]
    rows = Baselines(texts).score_many(pairs)
    assert [r["ngram3_containment"] for r in rows] == [ngram_containment(s, a) for s, a in pairs]
    assert [r["chrf"] for r in rows] == [chrf(s, a) for s, a in pairs]
    # No text with three words, nor a word of two letters (empty TF-IDF vocabulary): zeros, no error.
    (row,) = Baselines(["a b", "c"]).score_many([("a b", "c")])
    assert row["ngram3_containment"] == row["tfidf_cosine"] == 0.0


def test_encoder_baseline_rates_paraphrases_above_unrelated_texts() -> None:
    original = "The committee postponed the vote until the next meeting."
    pairs = [
        (original, "The vote was put off by the committee to its following session."),
        (original, "Bananas grow in warm climates and are rich in potassium."),
    ]
    rows = Baselines([t for p in pairs for t in p]).score_many(pairs)
    assert rows[0]["encoder"] > rows[1]["encoder"] + 0.3
    assert encoder_cosines(pairs) == [r["encoder"] for r in rows]
    assert all(0.0 <= r["encoder"] <= 1.0 for r in rows)
