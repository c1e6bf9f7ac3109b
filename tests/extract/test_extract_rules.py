"""Exact triples on hand-written sentences, parsed by the real spaCy model."""

import pytest

from dri.extract import graph_from_text, load_nlp
from dri.extract.rules import concept_mention, sentence_triples
from dri.graphs import concept_id, concept_nodes, higher_order_relations, triples, unary_relations


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
        # "X is a Y" is class membership
        ("Inheritance is a mechanism.", [("inheritance", "isa", "mechanism")]),
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


def test_missing_or_unresolvable_arguments_never_become_nodes(nlp):
    # "It" has no noun antecedent; "1967" is no noun: neither becomes a node.
    assert graph_from_text("It rained.", nlp=nlp).number_of_nodes() == 0
    g = graph_from_text("The concept was invented in 1967.", nlp=nlp)
    assert triples(g) == [] and unary_relations(g) == [("concept", "invent")]
    assert sorted(concept_nodes(g)) == ["c:concept"]


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


# -- narrative, news and MT text: lemmas, binding, compounds, narrators ---------


def test_verb_lemmas_are_wordnet_verbs(nlp):
    # spaCy's lemmatiser gives "hat" for "hated" and "scar" for "scared".
    assert extract("The clerk hated the new rules.", nlp) == [("clerk", "hate", "rule")]
    assert extract("The noise scared the horses.", nlp) == [("noise", "scare", "horse")]
    # Irregular forms that are verbs themselves ("found", "felt") still reduce.
    assert extract("The girl found a coin.", nlp) == [("girl", "find", "coin")]


def test_object_pronoun_never_binds_to_its_own_clause_subject(nlp):
    # Principle B: "it" is not the dog.
    assert extract("The dog found the bone and buried it.", nlp) == [
        ("dog", "find", "bone"),
        ("dog", "bury", "bone"),
    ]
    # Principle A: a reflexive is the subject.
    assert extract("The cat washed itself.", nlp) == [("cat", "wash", "cat")]


def test_hyphenated_modifier_is_not_split_into_the_concept(nlp):
    g = graph_from_text("A part-time worker fixed the roof.", nlp=nlp)
    assert triples(g) == [("worker", "fix", "roof")]
    assert "part-time worker" in g.nodes[concept_id("worker")]["mentions"]


def test_narrators_are_person_concepts(nlp):
    g = graph_from_text("I wrote a letter to my sister. We met in Paris.", nlp=nlp)
    assert triples(g) == [
        ("i", "write", "letter"),
        ("i", "write_to", "sister"),
        ("i", "have", "sister"),
        ("we", "meet_in", "paris"),
    ]
    for narrator in ("i", "we"):
        attrs = g.nodes[concept_id(narrator)]
        assert (attrs["entity"], attrs["wordnet_lemma"]) == ("PERSON", "person")
    assert "my" in g.nodes[concept_id("i")]["mentions"]


def test_named_entities_keep_their_name_and_carry_their_class(nlp):
    g = graph_from_text("Johnny met Susan in New York.", nlp=nlp)
    assert triples(g) == [("johnny", "meet", "susan"), ("johnny", "meet_in", "new_york")]
    got = {
        n: (g.nodes[n]["entity"], g.nodes[n]["wordnet_lemma"]) for n in ("c:johnny", "c:susan", "c:new_york")
    }
    assert got == {
        "c:johnny": ("PERSON", "person"),
        "c:susan": ("PERSON", "person"),
        "c:new_york": ("GPE", "location"),
    }
    assert "entity" not in g.nodes[concept_id("susan")] or g.nodes[concept_id("susan")]["pos"] == "n"


def test_personal_pronouns_prefer_people_and_it_refuses_them(nlp):
    g = graph_from_text("Mary bought a lamp. She liked it.", nlp=nlp)
    assert triples(g)[-1] == ("mary", "like", "lamp")


def test_copular_adjectives_possessives_and_isa(nlp):
    g = graph_from_text("The hawk's feathers were soft. The sun is a star.", nlp=nlp)
    assert triples(g) == [("feather", "be", "soft"), ("hawk", "have", "feather"), ("sun", "isa", "star")]
    assert g.nodes[concept_id("soft")]["pos"] == "a" and g.nodes[concept_id("feather")]["pos"] == "n"


def test_intransitive_verbs_are_one_argument_relations(nlp):
    g = graph_from_text("The wall collapsed. The mayor said that the plan failed.", nlp=nlp)
    assert triples(g) == []
    assert unary_relations(g) == [("wall", "collapse"), ("mayor", "say"), ("plan", "fail")]
    rel = next(r for r, a in g.nodes(data=True) if a.get("lemma") == "collapse")
    assert list(g.successors(rel)) == [] and list(g.predecessors(rel)) == [concept_id("wall")]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "The storm destroyed the harbour because the wall collapsed.",
            [("cause", ("wall", "collapse", None), ("storm", "destroy", "harbour"))],
        ),
        (
            "The wind blew hard, so the tree fell.",
            [("cause", ("wind", "blow", None), ("tree", "fall", None))],
        ),
        (
            "The wind blew. As a result, the tree fell.",
            [("cause", ("wind", "blow", None), ("tree", "fall", None))],
        ),
        (
            "The wind blew. Therefore the tree fell.",
            [("cause", ("wind", "blow", None), ("tree", "fall", None))],
        ),
        (
            "The man left early in order to catch the train.",
            [("purpose", ("man", "leave", None), ("man", "catch", "train"))],
        ),
        (
            "The king died before the war began.",
            [("before", ("king", "die", None), ("war", "begin", None))],
        ),
        (
            "The children ran outside after the bell rang loudly.",
            [("after", ("bell", "ring", None), ("child", "run", None))],
        ),
        (
            "When the bell rang, the children ran outside.",
            [("after", ("bell", "ring", None), ("child", "run", None))],
        ),
        (
            "Mary went to the market and then she bought apples.",
            [("before", ("mary", "go_to", "market"), ("mary", "buy", "apple"))],
        ),
        (
            "The team trained hard, but the team lost.",
            [("contrast", ("team", "train", None), ("team", "lose", None))],
        ),
        (
            "Although the team trained hard, the team lost.",
            [("contrast", ("team", "lose", None), ("team", "train", None))],
        ),
        (
            "The team trained hard. However, the team lost.",
            [("contrast", ("team", "train", None), ("team", "lose", None))],
        ),
        # No connective, no link; a connective not opening the sentence does not reach back.
        ("The wind blew. The tree fell.", []),
    ],
)
def test_connectives_give_higher_order_relations(text, expected, nlp):
    g = graph_from_text(text, nlp=nlp)
    assert higher_order_relations(g) == expected
    for rel, attrs in g.nodes(data=True):
        if attrs.get("order") == 2:
            # Both arguments are relation nodes.
            args = list(g.predecessors(rel)) + list(g.successors(rel))
            assert [g.nodes[a]["type"] for a in args] == ["relation", "relation"]


def test_a_copular_clause_links_as_a_cause(nlp):
    g = graph_from_text("The storm destroyed the harbour because the wall was weak.", nlp=nlp)
    assert higher_order_relations(g) == [("cause", ("wall", "be", "weak"), ("storm", "destroy", "harbour"))]


def test_indefinite_and_generic_subjects_are_participants(nlp):
    g = graph_from_text("Someone is beating an egg. One moves a pawn. Nothing happened.", nlp=nlp)
    assert triples(g) == [("someone", "beat", "egg"), ("one", "move", "pawn")]
    assert g.nodes[concept_id("someone")]["wordnet_lemma"] == "person"
    assert concept_id("nothing") not in g


def test_a_subject_hung_on_the_auxiliary_still_counts(nlp):
    # The parser attaches "man" to "is" (an auxiliary) when a PP follows it.
    assert unary_relations(graph_from_text("A man with a hard hat is dancing.", nlp=nlp)) == [
        ("man", "dance")
    ]


def test_pronouns_use_wordnet_animacy(nlp):
    # "It" refuses the engineer (a person in WordNet); "she" prefers the lawyer.
    g = graph_from_text("The engineer repaired the pump. It worked again.", nlp=nlp)
    assert unary_relations(g) == [("pump", "work")]
    assert extract("The company hired a lawyer. She won the case.", nlp)[-1] == ("lawyer", "win", "case")


def test_existential_there(nlp):
    assert extract("There is a cat in the garden.", nlp) == [("cat", "be_in", "garden")]
    assert unary_relations(graph_from_text("There are many problems.", nlp=nlp)) == [("problem", "exist")]


@pytest.mark.parametrize(
    "text, expected",
    [
        # a present participle modifying a noun: the noun acts
        ("A red bus driving down a street.", [("bus", "drive_down", "street")]),
        ("Two smiling women holding a baby.", [("woman", "hold", "baby")]),
        # a past participle: the noun is acted on, the agent is the subject
        ("A ball thrown by the boy hit the window.", [("boy", "throw", "ball"), ("ball", "hit", "window")]),
    ],
)
def test_participles_take_the_noun_they_modify(nlp, text, expected):
    assert extract(text, nlp) == expected


def test_imperatives_have_the_addressee_as_subject(nlp):
    g = graph_from_text("Cut the fabric. Pour the mixture into the pan and bake it.", nlp=nlp)
    assert triples(g) == [
        ("you", "cut", "fabric"),
        ("you", "pour", "mixture"),
        ("you", "pour_into", "pan"),
        ("you", "bake", "pan"),
    ]
    you = g.nodes[concept_id("you")]
    assert you["entity"] == "PERSON" and you["wordnet_lemma"] == "person"


@pytest.mark.parametrize(
    "text, expected",
    [
        # an extraposed "it" refers to nothing; the clause it stands for has a generic subject
        ("It is better to use a map.", [("you", "use", "map")]),
        ("It's hard to love with a broken heart.", [("you", "love_with", "heart")]),
        # a purpose infinitive under an imperative has the addressee as subject
        ("Heat the oven to bake the bread.", [("you", "heat", "oven"), ("you", "bake", "bread")]),
        # and so has one the parser hangs on the imperative's object
        ("Use a knife to cut the bread.", [("you", "use", "knife"), ("you", "cut", "bread")]),
        # but not after a verb of asking, whose object acts: that clause gives nothing
        ("Ask him to leave the room.", [("you", "ask", "he")]),
        # a subjectless adjunct of a clause with a subject gives nothing (measured, not kept)
        ("The army divided to attack the fortress.", [("army", "divide", None)]),
    ],
)
def test_subjectless_clauses_under_an_imperative_or_an_extraposed_it(nlp, text, expected):
    g = graph_from_text(text, nlp=nlp)
    assert sorted(triples(g) + [(s, r, None) for s, r in unary_relations(g)], key=str) == sorted(
        expected, key=str
    )


def test_a_bare_purpose_infinitive_links_as_purpose(nlp):
    g = graph_from_text("Split the rays to destroy the tumour.", nlp=nlp)
    assert higher_order_relations(g) == [("purpose", ("you", "split", "ray"), ("you", "destroy", "tumour"))]


def test_a_verbless_caption_places_its_head_noun(nlp):
    assert extract("Two dogs in the snow.", nlp) == [("dog", "be_in", "snow")]
    # a sentence with a predicate is read as usual, with no extra placement
    assert extract("The dog sleeps in the snow.", nlp) == [("dog", "sleep_in", "snow")]


def test_a_gerund_subject_is_a_concept(nlp):
    assert extract("Playing sport can lead to injury.", nlp) == [("playing", "lead_to", "injury")]


def test_adjective_complements_are_concepts_by_default(nlp):
    g = graph_from_text("The wall was weak.", nlp=nlp)
    assert triples(g) == [("wall", "be", "weak")]
    assert g.nodes[concept_id("weak")]["pos"] == "a"


def test_negation_marks_the_relation_label(nlp):
    assert extract("He did not eat the cake.", nlp) == [("he", "eat_not", "cake")]
    g = graph_from_text("The wall did not collapse. The cat never sleeps.", nlp=nlp)
    assert unary_relations(g) == [("wall", "collapse_not"), ("cat", "sleep_not")]
    # the same verb, negated or not, is half as similar as the verb to itself
    from dri.mapping.wordnet import relation_similarity

    assert relation_similarity("eat_not", "eat") == 0.5
