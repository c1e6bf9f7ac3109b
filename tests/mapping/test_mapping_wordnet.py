"""Offline WordNet: the built folder, Lin similarity against NLTK's own, generic space."""

from __future__ import annotations

import math
import threading
import warnings
from pathlib import Path

import pytest

from dri.mapping.wordnet import (
    TAIL_MISMATCH,
    WordNet,
    generic_space,
    lin_and_generic,
    lin_similarity,
    relation_generic_space,
    relation_heads,
    relation_similarity,
    similarity_matrix,
    wordnet,
)
from dri.mapping.wordnet_data import (
    IC_FILE,
    LEXNAMES,
    WordNetSetupError,
    build_wordnet,
    is_built,
    wordnet_root,
)


@pytest.fixture(scope="module")
def corpora() -> Path:
    wordnet()  # builds the folder if needed
    return wordnet_root()


@pytest.fixture(scope="module")
def nltk_reader(corpora):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader, WordNetICCorpusReader

    if str(corpora.parent) not in nltk.data.path:
        nltk.data.path.insert(0, str(corpora.parent))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = WordNetCorpusReader(str(corpora / "wordnet"), None)
    ic = WordNetICCorpusReader(str(corpora / "wordnet_ic"), [IC_FILE]).ic(IC_FILE)
    return reader, ic


def test_folder_has_lexnames_and_ic(corpora):
    assert is_built()
    lines = (corpora / "wordnet" / "lexnames").read_text().splitlines()
    assert len(lines) == 45 == len(LEXNAMES)
    assert lines[0] == "00\tadj.all\t3"
    assert lines[44] == "44\tadj.ppl\t3"
    ic_lines = (corpora / "wordnet_ic" / IC_FILE).read_text().splitlines()
    entity = next(line for line in ic_lines if line.startswith("1740n "))
    assert entity.endswith("ROOT")


def test_ic_counts_are_smoothed_and_propagated(corpora):
    wn = wordnet()
    person = wn.offsets("person", "n")[0]
    # cntlist gives person%1:03:00:: 6833 SemCor hits; add-one makes it more.
    assert wn._freq["n"][person] > 6833
    for offset, parents in list(wn._parents["n"].items())[:2000]:
        assert wn._freq["n"][offset] >= 1.0
        for up in parents:
            assert wn._freq["n"][up] > wn._freq["n"][offset] - 1e-9


def test_build_is_idempotent_and_reports_missing_sources(tmp_path):
    with pytest.raises(WordNetSetupError, match="setup-wordnet"):
        build_wordnet(tmp_path / "nltk_data", source=tmp_path / "no-such-folder")
    built = build_wordnet(tmp_path / "nltk_data")
    stamp = built / "wordnet" / ".dri-build.json"
    first = stamp.stat().st_mtime_ns
    build_wordnet(tmp_path / "nltk_data")
    assert stamp.stat().st_mtime_ns == first
    assert WordNet(built).lin("dog", "cat", "n") == wordnet().lin("dog", "cat", "n")


@pytest.mark.parametrize(
    "a, b, pos",
    [
        ("dog", "cat", "n"),
        ("leg", "bus", "n"),
        ("planet", "electron", "n"),
        ("car", "bicycle", "n"),
        ("walk", "ride", "v"),
        ("attract", "pull", "v"),
        ("think", "run", "v"),
        ("mice", "rat", "n"),
    ],
)
def test_lin_matches_nltk(nltk_reader, a, b, pos):
    reader, ic = nltk_reader
    expected = max(
        (x.lin_similarity(y, ic) for x in reader.synsets(a, pos) for y in reader.synsets(b, pos)), default=0.0
    )
    assert lin_similarity(a, b, pos) == pytest.approx(expected, abs=1e-9)
    assert lin_similarity(b, a, pos) == pytest.approx(expected, abs=1e-9)


def test_lin_rules():
    assert lin_similarity("dog", "dog") == 1.0
    assert lin_similarity("xqzzyword", "dog") == 0.0
    assert lin_similarity("xqzzyword", "xqzzyword") == 1.0
    assert lin_similarity("car", "automobile") == 1.0  # one synset
    assert 0.0 < lin_similarity("solar system", "star") < 1.0  # multiword lemma
    assert lin_similarity("solar_system", "star") == lin_similarity("Solar System", "star")
    assert lin_similarity("dog", "cat") > lin_similarity("dog", "idea")
    with pytest.raises(ValueError):
        lin_similarity("good", "bad", "a")
    matrix = similarity_matrix(["dog", "leg"], ["cat", "bus", "dog"])
    assert matrix[0][2] == 1.0 and matrix[1][1] == lin_similarity("leg", "bus")


def test_generic_space(nltk_reader):
    reader, _ = nltk_reader
    assert generic_space("dog", "cat") == "carnivore.n.01"
    assert generic_space("xqzzyword", "cat") is None
    # The paper's leg and bus meet under instrumentality (the best Lin pair,
    # leg.n.03 and busbar.n.01, meets at device.n.01, a kind of instrumentality).
    generic = generic_space("leg", "bus")
    hypernyms = {s.name() for s in reader.synset(generic).closure(lambda s: s.hypernyms())} | {generic}
    assert "instrumentality.n.03" in hypernyms
    assert (
        reader.synset("leg.n.03").lowest_common_hypernyms(reader.synset("bus.n.01"))[0].name()
        == "instrumentality.n.03"
    )
    score, name = lin_and_generic("walk", "ride", "v")
    assert name == "travel.v.01" and 0 < score < 1


def test_concurrent_calls_agree_with_serial(corpora):
    words = ["dog", "cat", "leg", "bus", "planet", "sun", "atom", "electron", "idea", "theory", "car", "tree"]
    fresh = WordNet(corpora)
    results: dict[tuple[str, str], float] = {}
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i, a in enumerate(words):
                for b in words[(i + offset) % len(words) :]:
                    results[(a, b)] = fresh.lin(a, b, "n")[0]
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results and all(math.isclose(v, lin_similarity(a, b)) for (a, b), v in results.items())


@pytest.mark.parametrize(
    "label, expected",
    [
        ("base_on", (("base", "on"),)),  # verb + preposition
        ("take_over", (("take_over", ""), ("take", "over"))),  # a phrasal verb WordNet knows whole
        ("want_to_capture", (("capture", ""),)),  # a chain: its last verb
        ("need_to_store_about", (("store", "about"),)),
        ("xyzzy_on", (("xyzzy", "on"),)),  # unknown verb: its first word
    ],
)
def test_relation_heads(label, expected):
    assert relation_heads(label) == expected


def test_relation_similarity_compares_head_verbs_and_weighs_the_tail():
    assert lin_similarity("base_on", "build_on", "v") == 0.0  # base_on is no WordNet verb
    heads = lin_similarity("base", "build", "v")
    assert heads > 0
    assert relation_similarity("base_on", "build_on") == pytest.approx(heads)
    assert relation_similarity("base_on", "build_from") == pytest.approx(heads * TAIL_MISMATCH)
    assert relation_similarity("build_from", "base_on") == relation_similarity("base_on", "build_from")
    assert relation_similarity("destroy", "destroy_on") == TAIL_MISMATCH
    assert relation_similarity("try_to_capture", "want_to_capture") == 1.0
    assert relation_similarity("base_on", "base_on") == 1.0
    assert relation_similarity("take_over", "take_over") == 1.0
    assert relation_generic_space("base_on", "build_on") == generic_space("base", "build", "v")
