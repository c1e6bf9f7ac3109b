"""The bound on the Analogy Similarity is never below the AS of the real mapping (real WordNet, the real mapper)."""

from __future__ import annotations

import itertools
import random

import pytest

from dri.extract import build_graphs, read_document
from dri.mapping.profiles import get_profile
from dri.mapping.random_graphs import random_ros_graph
from dri.metrics import compare
from dri.metrics.bound import BoundSide, analogy_bound
from dri.settings import PROJECT_ROOT

DEMO = PROJECT_ROOT / "corpora" / "demo" / "analogy"


@pytest.fixture(scope="module")
def demo_graphs():
    paths = sorted(p for p in DEMO.glob("*.txt") if p.name != "targets.txt")
    return list(build_graphs([read_document(p) for p in paths]))


@pytest.mark.parametrize("profile", ["sme", "paper"])
def test_the_bound_is_admissible_on_every_pair_of_the_demo_corpus(demo_graphs, profile):
    below_one = 0
    for source, target in itertools.permutations(demo_graphs, 2):
        real = compare(source, target, profile=profile).scores.analogy_similarity
        bound = analogy_bound(source, target, profile)
        assert real <= bound <= 1.0, (source.graph.get("name"), target.graph.get("name"))
        below_one += bound < 1.0
    assert below_one  # the bound says something


@pytest.mark.parametrize("profile", ["sme", "paper"])
def test_the_bound_is_admissible_on_random_graphs_of_a_small_vocabulary(profile):
    rng = random.Random(7)
    nouns = ("planet", "sun", "electron", "nucleus", "moon", "star", "atom", "cell", "king", "queen", "army")
    nouns += ("fortress", "tumour", "ray", "water", "field")
    verbs = ("attract", "orbit", "pull", "heat", "warm", "circle", "repel", "push")
    graphs = [random_ros_graph(rng.randint(5, 24), rng, nouns=nouns, verbs=verbs) for _ in range(10)]
    for source, target in itertools.combinations(graphs, 2):
        real = compare(source, target, profile=profile).scores.analogy_similarity
        assert real <= analogy_bound(source, target, profile)


def test_a_prepared_side_gives_the_same_bound_and_a_clone_can_reach_one(demo_graphs):
    sme = get_profile("sme")
    a, b = demo_graphs[0], demo_graphs[1]
    assert analogy_bound(BoundSide(a, sme), BoundSide(b, sme), sme) == analogy_bound(a, b, "sme")
    assert analogy_bound(a, a, "sme") == 1.0
