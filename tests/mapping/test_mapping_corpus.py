"""Corpus statistics: document frequencies of the content-vector terms, and the
evidence of a mapping weighted by how informative its words are in the corpus."""

from __future__ import annotations

import pytest

from dri.graphs import add_triple, new_graph
from dri.mapping.corpus import CorpusStatistics, concept_term, relation_term
from dri.mapping.features import content_features
from dri.mapping.profiles import PROFILES
from dri.metrics import compare


def _graph(name: str, *triples: tuple[str, str, str]):
    g = new_graph(name)
    for s, r, o in triples:
        add_triple(g, s, r, o)
    return g


def test_document_frequencies_count_each_graph_once():
    a = _graph("a", ("man", "use", "tool"), ("man", "use", "bootstrap"))
    b = _graph("b", ("woman", "use", "tool"))
    stats = CorpusStatistics.of_graphs([a, b])
    assert stats.documents == 2
    assert stats.frequency[relation_term("use", 1)] == 2
    assert stats.frequency[concept_term("tool")] == 2
    assert stats.frequency[concept_term("bootstrap")] == 1
    # The same counts from the stored content vectors, whose keys are these terms.
    assert CorpusStatistics.of_features(content_features(g) for g in (a, b)) == stats


def test_informativeness_falls_with_document_frequency():
    stats = CorpusStatistics(documents=9, frequency={"c:tool": 9, "c:bootstrap": 1})
    assert stats.informativeness("c:tool") == pytest.approx(0.0)
    assert 0.0 < stats.informativeness("c:bootstrap") < 1.0
    assert stats.informativeness("c:unseen") == pytest.approx(1.0)
    assert CorpusStatistics(documents=0).informativeness("c:tool") == 1.0


def test_a_rare_shared_word_counts_more_than_a_common_one():
    query = _graph("q", ("researcher", "use", "bootstrap"))
    common = _graph("c", ("student", "use", "bootstrap"))  # shares the rare word
    rare = _graph("r", ("researcher", "use", "hammer"))  # shares the common one
    others = [_graph(f"o{n}", ("researcher", "use", f"thing{n}")) for n in range(6)]
    stats = CorpusStatistics.of_graphs([query, common, rare, *others])
    weighted = PROFILES["sme"].but(corpus_information=1.0)

    def score(target, profile, corpus=None):
        return compare(query, target, profile=profile, corpus=corpus).scores.analogy_similarity

    plain = score(common, "sme") / score(rare, "sme")
    assert score(common, weighted, stats) / score(rare, weighted, stats) > 1.2 * plain
    # Without statistics the weights are neutral; a clone still scores 1.
    assert score(common, weighted) == pytest.approx(score(common, "sme"))
    assert compare(query, query.copy(), profile=weighted, corpus=stats).scores.analogy_similarity == (
        pytest.approx(1.0)
    )
