"""Offline WordNet: the built folder, Lin similarity against NLTK's own, generic space."""

from __future__ import annotations

import math
import random
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from dri.mapping import wordnet as wordnet_module
from dri.mapping.wordnet import (
    ADJ_ATTRIBUTE,
    ADJ_CLUSTER,
    PAIR_CACHE_SIZE,
    RULES,
    TAIL_MISMATCH,
    WORD_CACHE_SIZE,
    WordNet,
    _best_pair,
    clear_caches,
    generic_space,
    lin_and_generic,
    lin_similarity,
    normalise,
    relation_generic_space,
    relation_heads,
    relation_similarity,
    relation_similarity_matrix,
    similarity_functions,
    similarity_matrix,
    wordnet,
)
from dri.mapping.wordnet_data import (
    IC_FILE,
    LEXNAMES,
    WORDNET_FILES,
    ForeignWordNet,
    WordNetSetupError,
    WordNetSourceError,
    build_wordnet,
    is_built,
    wordnet_root,
)
from dri.settings import wordnet_source_dir


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


def _cut_mid_line(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"\n", len(data) // 2) + 20])


@pytest.mark.parametrize(
    "name, damage, line",
    [
        ("wordnet/data.noun", _cut_mid_line, None),  # a full disk while it was copied
        ("wordnet/index.noun", lambda p: p.write_bytes(b"\xcd\xff junk" * 100), 1),
        ("wordnet/noun.exc", lambda p: p.write_text("\n"), 1),
        (f"wordnet_ic/{IC_FILE}", lambda p: p.write_text("header\n1n x\n"), 2),
    ],
)
def test_a_damaged_wordnet_file_is_one_setup_error_naming_it(corpora, tmp_path, name, damage, line):
    # Each was the parser's IndexError, ValueError or UnicodeDecodeError (exit 70).
    import shutil

    copy = tmp_path / "corpora"
    for folder in ("wordnet", "wordnet_ic"):
        shutil.copytree(corpora / folder, copy / folder, ignore=shutil.ignore_patterns("*.pickle"))
    damage(copy / name)
    with pytest.raises(WordNetSetupError) as err:
        WordNet.load(copy)
    where = f"{copy / name}: line {line}: " if line else f"{copy / name}: line "
    assert str(err.value).startswith(where) and "a damaged WordNet file (" in str(err.value)
    assert str(err.value).endswith("set WordNet up again: scripts/setup-wordnet --force")


def test_a_build_again_keeps_a_users_files_beside_its_own(tmp_path):
    # The folders of an earlier build were removed whole, a user's ic-brown.dat with them.
    built = build_wordnet(tmp_path / "nltk_data")
    (built / "wordnet_ic" / "ic-brown.dat").write_text("theirs", encoding="utf-8")
    (built / "wordnet" / ".dri-build.json").write_text('{"version": 0}', encoding="utf-8")  # an older build
    assert not is_built(tmp_path / "nltk_data")
    build_wordnet(tmp_path / "nltk_data")
    assert is_built(tmp_path / "nltk_data")
    assert (built / "wordnet_ic" / "ic-brown.dat").read_text(encoding="utf-8") == "theirs"


def test_a_damaged_build_stamp_is_built_again(tmp_path):
    # JSON of another shape was an AttributeError of every command that loaded WordNet (exit 70).
    built = build_wordnet(tmp_path / "nltk_data")
    for stamp in ("[]", "1", "null", '"x"', "{bad", ""):
        (built / "wordnet" / ".dri-build.json").write_text(stamp)
        assert not is_built(tmp_path / "nltk_data"), stamp
    build_wordnet(tmp_path / "nltk_data")
    assert is_built(tmp_path / "nltk_data")


@pytest.mark.parametrize("folder", ["wordnet", "wordnet_ic"])
def test_a_wordnet_dri_did_not_build_is_left_alone(tmp_path, monkeypatch, folder):
    # DRI_NLTK_DATA at a user's own nltk_data: the build deleted its wordnet and
    # wordnet_ic folders (notes, other IC files) and put its own in their place.
    theirs = tmp_path / "nltk_data" / "corpora" / folder
    theirs.mkdir(parents=True)
    (theirs / "MY_NOTES.txt").write_text("precious", encoding="utf-8")
    with pytest.raises(ForeignWordNet) as err:
        build_wordnet(tmp_path / "nltk_data", force=True)
    assert str(err.value).startswith(f"{theirs.parent}: its {folder} folder(s) were not built by dri")
    monkeypatch.setenv("DRI_NLTK_DATA", str(tmp_path / "nltk_data"))
    monkeypatch.setattr(wordnet_module, "_instance", None)  # as in a fresh process
    with pytest.raises(ForeignWordNet, match="point DRI_NLTK_DATA at a new folder or unset it$"):
        wordnet_module.wordnet()
    assert (theirs / "MY_NOTES.txt").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in theirs.parent.iterdir()) == [folder]


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
    # The paper's rule is NLTK's Lin, maximised over the synset pairs.
    assert lin_similarity(a, b, pos, rule="max") == pytest.approx(expected, abs=1e-9)
    assert lin_similarity(b, a, pos, rule="max") == pytest.approx(expected, abs=1e-9)


def test_lin_rules():
    assert lin_similarity("dog", "dog") == 1.0
    assert lin_similarity("xqzzyword", "dog") == 0.0
    assert lin_similarity("xqzzyword", "xqzzyword") == 1.0
    assert lin_similarity("car", "automobile") == 1.0  # one synset
    assert 0.0 < lin_similarity("solar system", "star") < 1.0  # multiword lemma
    assert lin_similarity("solar_system", "star") == lin_similarity("Solar System", "star")
    assert lin_similarity("dog", "cat") > lin_similarity("dog", "idea")
    with pytest.raises(ValueError):
        wordnet().offsets("dog", "x")
    with pytest.raises(ValueError):
        lin_similarity("dog", "cat", rule="no-such-rule")
    matrix = similarity_matrix(["dog", "leg"], ["cat", "bus", "dog"])
    assert matrix[0][2] == 1.0 and matrix[1][1] == lin_similarity("leg", "bus")


def test_generic_space(nltk_reader):
    reader, _ = nltk_reader
    assert generic_space("dog", "cat") == "carnivore.n.01"
    assert generic_space("xqzzyword", "cat") is None
    # The paper's leg and bus meet under instrumentality (the best Lin pair,
    # leg.n.03 and busbar.n.01, meets at device.n.01, a kind of instrumentality).
    generic = generic_space("leg", "bus", rule="max")
    hypernyms = {s.name() for s in reader.synset(generic).closure(lambda s: s.hypernyms())} | {generic}
    assert "instrumentality.n.03" in hypernyms
    assert (
        reader.synset("leg.n.03").lowest_common_hypernyms(reader.synset("bus.n.01"))[0].name()
        == "instrumentality.n.03"
    )
    score, name = lin_and_generic("walk", "ride", "v", rule="max")
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


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_scores_identical_lemmas_one_and_stays_in_range(rule):
    assert lin_similarity("take", "take", "v", rule=rule) == 1.0
    assert lin_similarity("xqzzyword", "xqzzyword", "n", rule=rule) == 1.0
    assert lin_similarity("xqzzyword", "dog", "n", rule=rule) == 0.0
    for a, b, pos in [("take", "guide", "v"), ("dog", "cat", "n"), ("bank", "money", "n")]:
        assert 0.0 <= lin_similarity(a, b, pos, rule=rule) <= 1.0
        assert lin_similarity(a, b, pos, rule=rule) == lin_similarity(b, a, pos, rule=rule)


def test_semcor_rule_stops_rare_senses_making_common_verbs_identical():
    # Max over senses: some rare pair of senses is shared, so these are "identical".
    for a, b in [("take", "guide"), ("have", "make"), ("get", "become")]:
        assert lin_similarity(a, b, "v", rule="max") == 1.0
        assert lin_similarity(a, b, "v", rule="semcor") < 0.95
    assert lin_similarity("have", "make", "v", rule="semcor") < 0.5
    # Never above the paper's rule; equal where the most frequent senses meet.
    for a, b, pos in [("dog", "cat", "n"), ("walk", "ride", "v"), ("bank", "money", "n")]:
        assert lin_similarity(a, b, pos, rule="semcor") <= lin_similarity(a, b, pos, rule="max") + 1e-12
    assert lin_similarity("dog", "cat", rule="semcor") == pytest.approx(
        lin_similarity("dog", "cat", rule="max")
    )
    assert lin_similarity("bank", "money", rule="semcor") < 0.5 * lin_similarity("bank", "money", rule="max")


def test_sense_weights_follow_semcor_counts():
    weights = wordnet().sense_weights("take", "v")
    assert len(weights) == len(wordnet().offsets("take", "v"))
    assert max(weights) == 1.0 and min(weights) < 0.05
    # A word SemCor never tagged keeps every sense at full weight.
    assert set(wordnet().sense_weights("busbar", "n")) == {1.0}


def test_adjectives_by_synset_cluster_and_attribute():
    assert lin_similarity("weak", "weak", "a") == 1.0
    assert lin_similarity("big", "large", "a") == 1.0  # one synset
    assert lin_and_generic("weak", "strong", "a") == (ADJ_ATTRIBUTE, "strength.n.01")
    assert lin_similarity("hot", "cold", "a") == ADJ_ATTRIBUTE
    score, generic = lin_and_generic("abundant", "copious", "a")
    assert score in (1.0, ADJ_CLUSTER) and generic.split(".")[1] == "a"
    assert lin_similarity("weak", "purple", "a") == 0.0
    assert lin_similarity("xqzzyword", "weak", "a") == 0.0


def test_isa_is_identical_only_to_itself():
    assert relation_similarity("isa", "isa") == 1.0
    assert relation_similarity("isa", "be") == 0.0
    assert relation_similarity("be", "isa") == 0.0
    assert relation_similarity("isa", "have") == 0.0
    assert relation_generic_space("isa", "be") is None
    # have is the WordNet verb
    assert relation_similarity("have", "own") > 0.0


def test_similarity_functions_for_the_mapper():
    sim, gen = similarity_functions("max")
    assert sim("take", "guide", "v") == 1.0 and sim("dog", "cat", "n") == lin_similarity(
        "dog", "cat", rule="max"
    )
    assert gen("dog", "cat", "n") == "carnivore.n.01"
    sim, gen = similarity_functions("semcor")
    assert sim("take", "guide", "v") < 1.0 and sim("weak", "strong", "a") == ADJ_ATTRIBUTE
    with pytest.raises(ValueError):
        similarity_functions("nope")


def test_word_pair_cache_is_bounded(corpora):
    assert wordnet().cache_info().maxsize == PAIR_CACHE_SIZE
    small = WordNet(corpora, cache_size=100)
    nouns = small.lemmas("n")[:400]
    first = small.lin(nouns[0], nouns[1])
    for a in nouns[:20]:
        for b in nouns[20:]:
            small.lin(a, b, "n")
    info = small.cache_info()
    assert info.misses > 20 * 300 and info.currsize == 100
    assert small.lin(nouns[0], nouns[1]) == first  # evicted and recomputed alike
    # The score cache (without generic space) has the same bound.
    for a in nouns[:20]:
        for b in nouns[20:]:
            small.score(a, b, "n")
    assert small.cache_sizes()["score"] == 100
    # Every table filled on use and not bounded by WordNet's own size is an LRU with a bound.
    bounded = [small._lin_cached, small._score_cached, small._table_cached]
    bounded += [wordnet_module._relation_best, wordnet_module.relation_heads, wordnet_module._name, normalise]
    assert all(fn.cache_info().maxsize for fn in bounded)
    assert small._table_cached.cache_info().maxsize == WORD_CACHE_SIZE


def _sample_words(pos: str, n: int, seed: int) -> list[str]:
    """Random lemmas, the most polysemous ones, the root, a missing word and an inflection."""
    wn = wordnet()
    words = wn.lemmas(pos)
    polysemous = sorted(words, key=lambda w: (-len(wn.offsets(w, pos)), w))[:25]
    extra = {"n": ["entity", "dogs", "Solar System"], "v": ["be", "took", "take_over"]}[pos]
    return random.Random(seed).sample(words, n) + polysemous + extra + ["xqzzyword"]


@pytest.mark.parametrize("pos", ["n", "v"])
def test_fast_score_is_the_same_float_as_lin_over_every_sense_pair(pos):
    # score() takes the best Lin through the words' common ancestors instead of
    # comparing every pair of senses; the result must be the same float, not a close one.
    wn = wordnet()
    words = _sample_words(pos, 120, seed=5)
    checked = 0
    for i, a in enumerate(words):
        for b in words[i : i + 40]:
            assert wn.score(a, b, pos) == wn.lin(a, b, pos)[0], (a, b)
            checked += 1
    assert checked > 4000
    # lin() finds its generic space knowing the best score: the same pair as trying them all.
    ic = wn._icv[pos]
    for i, a in enumerate(words[:60]):
        for b in words[i + 1 : i + 15]:
            x, y = sorted((normalise(a), normalise(b)))
            assert wn._lin_uncached(pos, x, y, "max") == _best_pair(
                wn.synsets(x, pos), wn.synsets(y, pos), ic
            )
    # Other rules and parts of speech are lin()'s own score.
    assert wn.score("weak", "strong", "a") == wn.lin("weak", "strong", "a")[0] == ADJ_ATTRIBUTE
    assert wn.score("take", "guide", "v", "semcor") == wn.lin("take", "guide", "v", "semcor")[0] < 1.0
    with pytest.raises(ValueError):
        wn.score("dog", "cat", "n", "no-such-rule")


@pytest.mark.parametrize("pos, rule", [("n", "max"), ("v", "max"), ("n", "semcor"), ("a", "max")])
def test_score_matrix_is_score_of_every_pair(pos, rule):
    wn = wordnet()
    if pos == "a":
        rows, columns = ["weak", "hot", "big", "xqzzyword"], ["feeble", "cold", "large", "weak"]
        # Adjectives come from an index of the columns' synsets, clusters and attributes:
        # mix in the cluster heads of sampled rows (0.8), their antonyms' attributes (0.5),
        # nouns and inflections, so every tier is met.
        sample = random.Random(3).sample(wordnet().lemmas("a"), 80)
        heads = [
            wordnet()._first_word["a"][h]
            for w in sample[:40]
            for o in wordnet().offsets(w, "a")
            for h in wordnet()._adj_head.get(o, ())
        ]
        rows = rows + sample + ["bigger", "Weak", ""]
        columns = (
            columns + heads + ["strong", "strength", "heavy", "light", "largest", "dog", "", "xqzzyword"]
        )
    else:
        rows, columns = _sample_words(pos, 60, seed=1), _sample_words(pos, 50, seed=2)
    matrix = wn.score_matrix(rows, columns, pos, rule)
    expected = np.array([[wn.score(a, b, pos, rule) for b in columns] for a in rows])
    assert matrix.shape == (len(rows), len(columns))
    assert np.array_equal(matrix, expected)  # exactly, not approximately
    if pos == "a":
        assert {0.0, ADJ_ATTRIBUTE, ADJ_CLUSTER, 1.0} <= set(matrix.ravel().tolist())
    assert wn.score_matrix([], columns, pos, rule).shape == (0, len(columns))


def test_clear_caches_empties_every_table_and_scores_stay_the_same():
    wn = wordnet()
    before = (wn.score("dog", "cat"), lin_similarity("leg", "bus"), relation_similarity("take_over", "seize"))
    assert wn.cache_sizes()["score"] > 0
    clear_caches()
    assert wn.cache_sizes() == {"lin": 0, "score": 0, "word tables": 0}
    after = (wn.score("dog", "cat"), lin_similarity("leg", "bus"), relation_similarity("take_over", "seize"))
    assert after == before
    assert 0 < wn.cache_sizes()["word tables"] <= WORD_CACHE_SIZE


def test_relation_similarity_matrix_is_relation_similarity_of_every_pair():
    rows = ["base_on", "build_on", "take_over", "Take over", "try_to_build_on", "isa", "have", "destroy"]
    rows += ["xqzzy_on", "seize", "pass_through", "be_in", "own"]
    columns = ["build", "destroy_on", "take", "isa", "possess", "take_over", "go_through", "be", "xqzzy"]
    matrix = relation_similarity_matrix(rows, columns)
    expected = np.array([[relation_similarity(a, b) for b in columns] for a in rows])
    assert np.array_equal(matrix, expected)
    assert matrix[rows.index("Take over"), columns.index("take_over")] == 1.0
    assert matrix[rows.index("isa"), columns.index("isa")] == 1.0
    assert (matrix[rows.index("isa")] == 0.0).sum() == len(columns) - 1
    # Labels of one reading only (no second reading to take on either side), and one side only.
    for rows, columns in ((["have", "destroy"], ["build", "take", "be"]), (["have"], ["base_on", "be_in"])):
        expected = np.array([[relation_similarity(a, b) for b in columns] for a in rows])
        assert np.array_equal(relation_similarity_matrix(rows, columns), expected)
        assert np.array_equal(relation_similarity_matrix(columns, rows), expected.T)


def test_information_ranks_general_words_below_specific_ones():
    wn = wordnet()
    assert wn.information("be", "v") < wn.information("play", "v") < wn.information("inherit", "v")
    assert wn.information("person", "n") < wn.information("man", "n") < wn.information("guitar", "n")
    # Words WordNet does not list (most names) and adjectives (no IC) count fully.
    assert wn.information("xyzzyqq", "n") == 1.0 and wn.information("weak", "a") == 1.0
    assert wn.information("entity", "n") == 0.0  # the root: every noun is an entity
    assert all(0.0 < wn.information(w, "n") < 1.0 for w in ("thing", "dog"))


@pytest.mark.parametrize(
    "word, pos, expected",
    [
        # SemCor tags motion 8 times as gesture.n.02 ("the use of movements ... to communicate"),
        # 7 as movement.n.03 and 6 as motion.n.03: the most frequent sense is the first.
        ("motion", "n", "gesture.n.02"),
        ("orbit", "n", "orbit.n.01"),
        ("path", "n", "way.n.05"),
        # "revolve_around" is tagged twice as focus_on.v.01 ("center upon"), never as revolve_around.v.02.
        ("revolve_around", "v", "focus_on.v.01"),
        ("revolve", "v", "revolve.v.01"),
        # A word WordNet lists counts its own senses: "found" a company, not the past of "find" ...
        ("found", "v", "establish.v.01"),
        ("lay", "v", "put.v.01"),
        # ... and one it does not list counts its base forms': axis.n.01 (tagged 6 times), not ax.n.01 (2).
        ("axes", "n", "axis.n.01"),
    ],
)
def test_identical_lemmas_meet_in_their_most_frequent_semcor_sense(word, pos, expected):
    for rule in RULES:
        assert lin_and_generic(word, word, pos, rule=rule) == (1.0, expected)


def test_the_generic_space_of_different_words_is_where_the_best_sense_pair_meets(nltk_reader):
    from nltk.corpus.reader.wordnet import _lcs_ic, information_content

    reader, ic = nltk_reader
    for a, b in [("electron", "planet"), ("nucleus", "sun"), ("leg", "bus"), ("charge", "mass")]:
        score, generic = lin_and_generic(a, b, "n", rule="max")
        lcs = reader.synset(generic)
        # A pair of senses under the generic space reaches the score through it ...
        reaching = [
            (x, y)
            for x in reader.synsets(a, "n")
            for y in reader.synsets(b, "n")
            if lcs in [*x.common_hypernyms(y), x, y] and x.lin_similarity(y, ic) == pytest.approx(score)
        ]
        assert reaching, (a, b, generic)
        # ... and it is the most informative subsumer of that pair (the "lowest" by IC).
        x, y = reaching[0]
        assert information_content(lcs, ic) == pytest.approx(_lcs_ic(x, y, ic)[2])


def test_identical_relation_labels_take_their_head_verbs_most_frequent_sense():
    assert relation_generic_space("revolve_around", "revolve_around") == "focus_on.v.01"
    assert relation_generic_space("attract_with", "attract_with") == "attract.v.01"
    assert relation_generic_space("fall_not_into", "fall_not_into") == "fall.v.01"
    assert relation_generic_space("isa", "isa") is None


def test_has_lemma_reads_the_word_itself_without_morphology() -> None:
    wn = wordnet_module.wordnet()
    assert wn.has_lemma("scoop", "v") and wn.has_lemma("crime", "n")
    # Morphology finds "scoop" for "scooped", but the word itself is no lemma.
    assert wn.offsets("scooped", "v") and not wn.has_lemma("scooped", "v")
    assert not wn.has_lemma("crime", "v")


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_wordnet_source_is_unset_not_the_current_folder(monkeypatch, blank):
    # Path("") is "."; the setup then looked for WordNet's files in the current folder
    # (and in a folder named by the blanks).
    monkeypatch.setenv("DRI_WORDNET_SOURCE", blank)
    assert wordnet_source_dir() == Path("/usr/share/wordnet")
    monkeypatch.setenv("DRI_WORDNET_SOURCE", " /srv/wordnet ")
    assert wordnet_source_dir() == Path("/srv/wordnet")


def _source_copy(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    source.mkdir()
    for name in WORDNET_FILES:
        (source / name).symlink_to(Path("/usr/share/wordnet") / name)
    return source


def _damaged(source: Path, name: str, data: bytes) -> None:
    (source / name).unlink()
    (source / name).write_bytes(data)


@pytest.mark.parametrize(
    "name, damage, reason",
    [
        (
            "data.noun",
            b"garbage\n",
            "data.noun: line 1: not as WordNet 3.0 writes it (ValueError: invalid literal for int()",
        ),
        ("data.noun", b"\xff\xfe junk\n", "data.noun: not UTF-8 text (invalid start byte), after line 0"),
        ("data.noun", b"", "data.noun: an empty file"),
        ("index.sense", b"one-field\n", "index.sense: line 1: not as WordNet 3.0 writes it (ValueError: "),
        (
            "data.verb",
            b"00001740 03 n 01 entity 0 003\n",
            "data.verb: line 1: not as WordNet 3.0 writes it (",
        ),
    ],
)
def test_a_damaged_wordnet_source_is_one_line_naming_the_file(tmp_path, monkeypatch, name, damage, reason):
    # A file of junk was a ValueError or IndexError from the parser (exit 70); an
    # empty data file built a WordNet without nouns, kept as built (AS 0.17 for 0.28).
    source = _source_copy(tmp_path)
    _damaged(source, name, damage)
    with pytest.raises(WordNetSourceError) as err:
        build_wordnet(tmp_path / "nltk_data", source=source)
    assert str(err.value).startswith(f"{source}: {reason}")
    assert str(err.value).endswith("; set WordNet up from a folder of WordNet 3.0's files")
    assert not is_built(tmp_path / "nltk_data")
    # Chosen by the variable, the message names it and what to do about it.
    monkeypatch.setenv("DRI_WORDNET_SOURCE", str(source))
    with pytest.raises(WordNetSourceError) as err:
        build_wordnet(tmp_path / "nltk_data")
    assert str(err.value).startswith(f"DRI_WORDNET_SOURCE={source}: {reason}")
    assert str(err.value).endswith("; point DRI_WORDNET_SOURCE at WordNet 3.0's files, or unset it")


def _edited(source: Path, name: str, edit) -> None:
    text = (Path("/usr/share/wordnet") / name).read_text(encoding="utf-8")
    _damaged(source, name, edit(text).encode("utf-8"))


@pytest.mark.parametrize(
    "name, edit, reason",
    [
        # A traceback (KeyError) while the counts went up the hierarchy.
        (
            "data.noun",
            lambda t: t.replace("@ 00001740 n", "@ 99999999 n", 1),
            "data.noun: points to 1 synsets it lacks",
        ),
        # OverflowError; and a negative count built an IC file every load refused.
        (
            "cntlist",
            lambda t: "9" * 4000 + t[t.index(" ") :],
            "cntlist: line 1: not as WordNet 3.0 writes it (",
        ),
        (
            "cntlist",
            lambda t: "-100000000" + t[t.index(" ") :],
            "cntlist: line 1: not as WordNet 3.0 writes it (",
        ),
        # A blank line built a WordNet every load refused as damaged.
        ("noun.exc", lambda t: "\n" + t, "noun.exc: line 1: not as WordNet 3.0 writes it ("),
    ],
)
def test_a_wordnet_source_that_would_build_a_wordnet_no_load_takes_is_refused(tmp_path, name, edit, reason):
    source = _source_copy(tmp_path)
    _edited(source, name, edit)
    with pytest.raises(WordNetSourceError) as err:
        build_wordnet(tmp_path / "nltk_data", source=source)
    assert str(err.value).startswith(f"{source}: {reason}")
    assert not is_built(tmp_path / "nltk_data")


def test_a_wordnet_source_file_that_is_not_a_file_or_too_large_is_named(tmp_path):
    # A FIFO, a folder or a link to /dev/zero was "missing WordNet files ...; install
    # the Debian packages"; a sparse 500 MB file was read whole as one line.
    source = _source_copy(tmp_path)
    (source / "data.adv").unlink()
    (source / "data.adv").symlink_to("/dev/zero")
    with pytest.raises(WordNetSourceError, match=r": data\.adv: a character device, not a regular file;"):
        build_wordnet(tmp_path / "nltk_data", source=source)
    (source / "data.adv").unlink()
    with (source / "data.adv").open("wb") as sparse:
        sparse.truncate(200_000_000)
    with pytest.raises(
        WordNetSourceError, match=r": data\.adv: 200,000,000 bytes, larger than any of WordNet"
    ):
        build_wordnet(tmp_path / "nltk_data", source=source)


def test_a_wordnet_source_cut_short_is_refused(tmp_path):
    source = _source_copy(tmp_path)
    whole = (Path("/usr/share/wordnet") / "data.noun").read_bytes()
    _damaged(source, "data.noun", whole[: len(whole) // 2].rsplit(b"\n", 1)[0] + b"\n")
    with pytest.raises(
        WordNetSourceError, match=r": data\.noun: lacks [\d,]+ synsets index\.noun names \(cut short"
    ):
        build_wordnet(tmp_path / "nltk_data", source=source)


def _setup_error(monkeypatch, nltk_data: Path) -> str:
    """The error of the first use of WordNet in a fresh process with ``DRI_NLTK_DATA=nltk_data``."""
    monkeypatch.setenv("DRI_NLTK_DATA", str(nltk_data))
    monkeypatch.setattr(wordnet_module, "_instance", None)  # as in a fresh process
    with pytest.raises(WordNetSetupError) as err:
        wordnet_module.wordnet()
    return str(err.value)


def test_a_chosen_nltk_data_folder_without_wordnet_is_refused_not_built_in(tmp_path, monkeypatch):
    # dri graph refused it; dri compare built 47 MB of WordNet there, and made missing folders.
    chosen = tmp_path / "nowhere" / "nltk_data"
    assert _setup_error(monkeypatch, chosen) == (
        f"DRI_NLTK_DATA={chosen}: no WordNet there (no {chosen / 'corpora' / 'wordnet'}): "
        "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
    )
    assert not (tmp_path / "nowhere").exists()


def test_a_wordnet_variable_naming_a_file_is_named(tmp_path, monkeypatch):
    # It said "WordNet is not set up in /some/file/corpora: … ([Errno 20] …)", not the variable.
    in_the_way = tmp_path / "nltk_data"
    in_the_way.write_text("x", encoding="utf-8")
    assert _setup_error(monkeypatch, in_the_way) == (
        f"DRI_NLTK_DATA={in_the_way}: a file, not a folder: point it at the nltk_data folder "
        "scripts/setup-wordnet made, or unset it"
    )
