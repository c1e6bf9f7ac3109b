"""Exact triples on hand-written sentences, parsed by the real spaCy model."""

import pytest

from dri.extract import graph_from_text, load_nlp
from dri.extract.rules import concept_mention, sentence_triples
from dri.graphs import concept_id, triples


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


def extract(text, nlp):
    return triples(graph_from_text(text, nlp=nlp))


@pytest.mark.parametrize(
    "text, expected",
    [
        # active, direct object
        ("The sun attracts the planets.", [("sun", "attract", "planet")]),
        # passive with agent: the agent becomes the subject
        ("The planets are attracted by the sun.", [("sun", "attract", "planet")]),
        # conjunction of subjects gives two triples
        ("John and Mary use computers.", [("john", "use", "computer"), ("mary", "use", "computer")]),
        # conjunction of objects
        (
            "The atom contains protons and electrons.",
            [("atom", "contain", "proton"), ("atom", "contain", "electron")],
        ),
        # conjoined verbs share the subject
        (
            "The nucleus attracts the electrons and repels the protons.",
            [("nucleus", "attract", "electron"), ("nucleus", "repel", "proton")],
        ),
        # verb chain
        ("The team tried to identify the cause.", [("team", "try_to_identify", "cause")]),
        # phrasal verb
        ("The derived classes take over the attributes.", [("class", "take_over", "attribute")]),
        # prepositional object of a passive without agent, verb lemma + preposition
        ("The method is based on graphs.", [("method", "base_on", "graph")]),
        # prepositional object of an active verb
        ("The planets revolve around the sun.", [("planet", "revolve_around", "sun")]),
        # copula with attribute
        ("Inheritance is a mechanism.", [("inheritance", "be", "mechanism")]),
        # compound nouns join with "_"
        ("The search engine ranks web pages.", [("search_engine", "rank", "web_page")]),
        # relative pronoun resolves to the noun its clause modifies
        (
            "The classes, which are called base classes, contain methods.",
            [("class", "call", "base_class"), ("class", "contain", "method")],
        ),
        # a relative clause with its own subject takes the modified noun as object
        (
            "The model that the researchers proposed uses graphs.",
            [("researcher", "propose", "model"), ("model", "use", "graph")],
        ),
    ],
)
def test_exact_triples(text, expected, nlp):
    assert extract(text, nlp) == expected


def test_pronoun_resolves_to_previous_sentence_noun_and_joins_its_mentions(nlp):
    g = graph_from_text("The planets orbit the sun. They are attracted by gravity.", nlp=nlp)
    assert triples(g) == [("planet", "orbit", "sun"), ("gravity", "attract", "planet")]
    planet = g.nodes[concept_id("planet")]
    assert planet["mentions"] == ["planets", "They"]
    assert planet["sentences"] == [0, 1]


def test_pronoun_agrees_in_number(nlp):
    # "it" skips the plural "planets" and reaches the singular "sun".
    g = graph_from_text("The sun attracts the planets. It emits light.", nlp=nlp)
    assert triples(g) == [("sun", "attract", "planet"), ("sun", "emit", "light")]
    assert "It" in g.nodes[concept_id("sun")]["mentions"]


def test_pronoun_prefers_the_previous_subject_over_a_nearer_noun(nlp):
    # "star" is nearer, but the subject "sun" is the preferred antecedent.
    g = graph_from_text("The sun is a star. It emits light.", nlp=nlp)
    assert ("sun", "emit", "light") in triples(g)
    assert "It" in g.nodes[concept_id("sun")]["mentions"]


def test_pronoun_without_an_agreeing_subject_takes_the_nearest_noun(nlp):
    # The subject "planets" is plural, so the singular "it" falls back to "sun";
    # the plural "them" goes to the subject "planets".
    g = graph_from_text("The planets orbit the sun because it attracts them.", nlp=nlp)
    assert triples(g) == [("planet", "orbit", "sun"), ("sun", "attract", "planet")]


def test_a_passive_agent_counts_as_the_subject(nlp):
    # The agent "nucleus" is the logical subject, preferred over the nearer "atom".
    g = graph_from_text(
        "The electron is attracted by the nucleus of the atom. It holds the electron.", nlp=nlp
    )
    assert triples(g) == [("nucleus", "attract", "electron"), ("nucleus", "hold", "electron")]


def test_pronoun_does_not_reach_two_sentences_back(nlp):
    g = graph_from_text("The sun shines. Birds sing loudly. It emits light.", nlp=nlp)
    assert all(t[1] != "emit" for t in triples(g))


def test_triples_with_missing_or_unresolvable_arguments_are_dropped(nlp):
    # "We" has no noun antecedent; "arrived" has no object; "1967" is no noun.
    assert extract("We propose a new method.", nlp) == []
    assert extract("The train arrived.", nlp) == []
    assert extract("The concept was invented in 1967.", nlp) == []
    g = graph_from_text("The train arrived.", nlp=nlp)
    assert g.number_of_nodes() == 0  # no placeholder nodes


def test_concepts_merge_case_insensitively_relations_do_not(nlp):
    g = graph_from_text("Magnets attract iron. The magnet attracts nickel.", nlp=nlp)
    assert triples(g) == [("magnet", "attract", "iron"), ("magnet", "attract", "nickel")]
    relations = [n for n, t in g.nodes(data="type") if t == "relation"]
    assert len(relations) == 2
    assert g.nodes[concept_id("magnet")]["mentions"] == ["Magnets", "magnet"]


def test_sentence_triples_passes_nouns_to_the_next_sentence(nlp):
    first = sentence_triples(nlp("The electrons orbit the nucleus."))
    assert [(a.mention.lemma, a.subject) for a in first.nouns] == [("electron", True), ("nucleus", False)]
    second = sentence_triples(nlp("It attracts them."), first.nouns)
    assert [(t.subject.lemma, t.relation, t.object.lemma) for t in second.triples] == [
        ("nucleus", "attract", "electron")
    ]
    assert (second.triples[0].subject.text, second.triples[0].object.text) == ("It", "them")


def test_concept_mention_skips_tokens_without_letters(nlp):
    doc = nlp("In 1967 the search engines were built.")
    by_text = {t.text: concept_mention(t) for t in doc}
    assert by_text["1967"] is None
    assert by_text["engines"].lemma == "search_engine"
    assert by_text["engines"].text == "search engines"
    assert by_text["engines"].number == "Plur"
