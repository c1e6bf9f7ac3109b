import json

import pytest

from dri.graphs import (
    OBJ,
    SUBJ,
    add_concept,
    add_triple,
    concept_nodes,
    from_json,
    new_graph,
    relation_nodes,
    restrict_to_sections,
    summary,
    to_json,
    triples,
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
