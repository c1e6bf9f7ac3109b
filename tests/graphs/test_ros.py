import json

import pytest

from dri.graphs import (
    OBJ,
    SUBJ,
    add_concept,
    add_relation,
    add_triple,
    concept_nodes,
    from_json,
    higher_order_relations,
    load_json,
    new_graph,
    relation_nodes,
    restrict_to_sections,
    save_json,
    summary,
    to_json,
    triples,
    unary_relations,
)


def solar_graph():
    g = new_graph("doc1", name="solar", sentences=3)
    add_triple(g, "Sun", "attract", "planet", sentence=0, section="abstract")
    add_triple(g, "planet", "orbit", "sun", sentence=1, section="background")
    add_triple(g, "sun", "heat", "planet", sentence=2, section="method")
    return g


def test_concepts_merge_case_insensitively_and_relations_do_not():
    g = solar_graph()
    assert sorted(concept_nodes(g)) == ["c:planet", "c:sun"]
    assert len(relation_nodes(g)) == 3
    assert g.nodes["c:sun"]["sentences"] == [0, 1, 2]
    assert g.nodes["c:sun"]["mentions"] == ["Sun", "sun"]


def test_edges_run_subject_to_relation_to_object():
    g = solar_graph()
    assert g.edges["c:sun", "r:0"]["label"] == SUBJ
    assert g.edges["r:0", "c:planet"]["label"] == OBJ
    assert triples(g) == [("sun", "attract", "planet"), ("planet", "orbit", "sun"), ("sun", "heat", "planet")]


def test_summary_counts():
    s = summary(solar_graph())
    assert (s.concepts, s.relations, s.triples, s.sentences) == (2, 3, 3, 3)
    assert str(s) == "2 concepts, 3 relations, 3 triples, 3 sentences"


def test_json_round_trip_keeps_everything():
    g = solar_graph()
    add_concept(g, "moon", mention="it", sentence=2)
    back = from_json(json.loads(json.dumps(to_json(g))))
    assert dict(back.nodes(data=True)) == dict(g.nodes(data=True))
    assert sorted(back.edges(data=True)) == sorted(g.edges(data=True))
    assert back.graph == g.graph


def test_json_with_other_schema_version_is_refused():
    data = to_json(solar_graph())
    data["schema_version"] = 999
    with pytest.raises(ValueError, match="schema version 999"):
        from_json(data)


def test_relation_ids_stay_unique_after_removal():
    g = solar_graph()
    g.remove_node("r:2")
    rel = add_triple(g, "moon", "orbit", "planet")
    assert rel == "r:3"


def test_restrict_to_sections_keeps_whole_triples():
    sub = restrict_to_sections(solar_graph(), ["Abstract", "background"])
    assert triples(sub) == [("sun", "attract", "planet"), ("planet", "orbit", "sun")]
    assert sub.graph["doc_id"] == "doc1"


def test_module_example_runs():
    import doctest

    import dri.graphs.ros

    result = doctest.testmod(dri.graphs.ros)
    assert result.attempted > 0 and result.failed == 0


def causal_graph():
    g = new_graph("doc2", name="storm", sentences=2)
    destroy = add_triple(g, "storm", "destroy", "harbour", sentence=0, section="abstract")
    weak = add_relation(g, "be", add_concept(g, "wall"), add_concept(g, "weak", pos="a"), sentence=0)
    add_relation(g, "cause", weak, destroy, order=2, sentence=0, section="body")
    add_triple(g, "town", "collapse", None, sentence=1, section="body")
    return g


def test_one_argument_and_higher_order_relations():
    g = causal_graph()
    assert triples(g) == [("storm", "destroy", "harbour"), ("wall", "be", "weak")]
    assert unary_relations(g) == [("town", "collapse")]
    assert higher_order_relations(g) == [("cause", ("wall", "be", "weak"), ("storm", "destroy", "harbour"))]
    # The order-2 relation's arguments are relation nodes, not concepts.
    assert g.edges["r:1", "r:2"]["label"] == SUBJ and g.edges["r:2", "r:0"]["label"] == OBJ
    assert [g.nodes[r]["order"] for r in ("r:0", "r:1", "r:2", "r:3")] == [1, 1, 2, 1]
    assert g.nodes["c:weak"]["pos"] == "a" and g.nodes["c:wall"]["pos"] == "n"
    s = summary(g)
    assert (s.relations, s.triples, s.unary, s.higher_order) == (4, 2, 1, 1)
    assert str(s) == "5 concepts, 4 relations, 2 triples, 1 one-argument, 1 higher-order, 2 sentences"
    back = from_json(json.loads(json.dumps(to_json(g))))
    assert higher_order_relations(back) == higher_order_relations(g)


def test_graphs_without_order_read_as_first_order():
    g = solar_graph()
    for rel in relation_nodes(g):
        del g.nodes[rel]["order"]
    assert triples(g)[0] == ("sun", "attract", "planet") and higher_order_relations(g) == []


def test_restricting_a_higher_order_relation_keeps_its_argument_relations():
    sub = restrict_to_sections(causal_graph(), ["body"])
    assert higher_order_relations(sub) == [("cause", ("wall", "be", "weak"), ("storm", "destroy", "harbour"))]
    assert unary_relations(sub) == [("town", "collapse")]


def test_entity_attributes_come_from_the_first_mention_that_has_them():
    g = new_graph("d")
    add_concept(g, "susan", mention="Susan")
    add_concept(g, "susan", entity="PERSON", wordnet_lemma="person", mention="she")
    add_concept(g, "susan", entity="ORG", wordnet_lemma="organization")
    attrs = g.nodes["c:susan"]
    assert (attrs["entity"], attrs["wordnet_lemma"], attrs["mentions"]) == (
        "PERSON",
        "person",
        ["Susan", "she"],
    )


def test_save_json_writes_a_name_that_is_not_utf8_as_its_escape(tmp_path):
    # A file name with bytes that are not UTF-8 reaches Python as lone surrogates;
    # a graph keeps the escape instead (dri.literal.storable), which every store and reader takes.
    g = new_graph("g", name="sun\udcff.txt")
    assert g.graph["name"] == "sun\\udcff.txt"
    g.graph["path"] = "/corpus/sun\udcfe.txt"  # set later, by hand: written the same way
    add_triple(g, "sun", "attract", "planet")
    path = tmp_path / "g.json"
    save_json(g, path)
    text = path.read_text(encoding="utf-8")  # the file is UTF-8
    attrs = json.loads(text)["graph"]
    assert (attrs["name"], attrs["path"]) == ("sun\\udcff.txt", "/corpus/sun\\udcfe.txt")
    assert load_json(path).graph["name"] == "sun\\udcff.txt"
