"""Experiment (docs/mapping.md, "Nouns the graph has no concept of"): variants of abstracting
the words of the clause context's sentences that the graph made no concept of, run through
bench_validity.py.

    FLOOR=0.1 POWER=2 .venv/bin/python bench/exp_clause_nouns.py rule=dominant,det=1 --profile sme \
        --sets storyanalogy,analobench-s1,analobench-s10,clough-stevenson --limit 300 --workers 1 --no-docs

``rule``: ``only`` (no verb or adjective sense) or ``dominant`` (SemCor tags); ``names``,
``numbers``, ``pronouns``, ``collapse`` (fold repeated roles), ``guard`` (verbs where one is
expected), ``det`` (a word after a determiner is a noun); FLOOR replaces UNRELATED in the
factor, POWER raises the factor's rescaled cosine to a power.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import os
import re

from spacy.lang.en.stop_words import STOP_WORDS

from dri.mapping import abstract_sentences as mod
from dri.mapping.wordnet import wordnet

ORIGINAL = mod.abstract_sentences
_WORD = re.compile(r"(?<![\w'-])([A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]|\d[\d.,]*\d|\d)(?![\w-])")
PERSON = {
    "he",
    "she",
    "him",
    "her",
    "his",
    "hers",
    "himself",
    "herself",
    "i",
    "me",
    "my",
    "we",
    "us",
    "our",
    "you",
    "your",
    "who",
    "whom",
}
THING = {"it", "its", "itself", "they", "them", "their", "themselves"}
_CACHE = {}


def counts(w):
    hit = _CACHE.get(w)
    if hit is None:
        wn = wordnet()
        hit = {p: (len(wn.offsets(w, p)), sum(c for _, c in wn.sense_counts(w, p))) for p in ("n", "v", "a")}
        _CACHE[w] = hit
    return hit


def is_noun(w, rule):
    c = counts(w)
    if not c["n"][0]:
        return False
    other = (c["v"][0] + c["a"][0], c["v"][1] + c["a"][1])
    if rule == "only":
        return other[0] == 0
    # dominant: more SemCor tags as a noun; untagged: more noun senses
    if c["n"][1] or other[1]:
        return c["n"][1] > other[1]
    return c["n"][0] > other[0]


GUARD = {
    "to",
    "can",
    "could",
    "will",
    "would",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "do",
    "does",
    "did",
    "not",
    "n't",
    "he",
    "she",
    "it",
    "they",
    "we",
    "i",
    "you",
    "someone",
    "something",
    "who",
    "which",
    "that",
}

DETS = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "their",
    "its",
    "my",
    "our",
    "your",
    "each",
    "every",
    "some",
    "any",
    "no",
    "someone's",
    "something's",
}


def rewrite(sentence, rule, names, numbers, pronouns, guard=True, det=False):

    def sub(m):
        before = sentence[: m.start()].split()
        p = before[-1].lower().strip(",;:") if before else ""
        w = m.group(0)
        if w in ("someone", "something"):
            return w
        low = w.lower()
        if w[0].isdigit():
            return "something" if numbers else w
        if pronouns and low in PERSON:
            return "someone"
        if pronouns and low in THING:
            return "something"
        if low in STOP_WORDS or (low.endswith("'s") and low[:-2] in STOP_WORDS):
            return w
        poss = ""
        base = low
        if low.endswith("'s"):
            base, poss = low[:-2], "'s"
        if names and w[0].isupper() and m.start() > 0 and not any(counts(base)[p][0] for p in ("v", "a")):
            return "someone" + poss
        if (
            names
            and w[0].isupper()
            and m.start() == 0
            and not low.endswith("ly")
            and not any(counts(base)[p][0] for p in ("n", "v", "a"))
        ):
            return "someone" + poss
        if guard and m.start() == 0 and base in wordnet()._index["v"]:
            return w
        if guard and p in GUARD and counts(base)["v"][0]:
            return w
        if det and p in DETS and counts(base)["n"][0]:
            return "something" + poss
        if rule and is_noun(base, rule):
            return "something" + poss
        return w

    return _WORD.sub(sub, sentence)


def variant(rule="dominant", names=True, numbers=True, pronouns=False, collapse=False, guard=True, det=False):
    def abstract_sentences(graph):
        out = ORIGINAL(graph)
        if out is None:
            return None
        res = []
        for s in out:
            s = rewrite(s, rule, names, numbers, pronouns, guard, det)
            s = mod._DETERMINER.sub(r"\1", s)
            s = mod._POSSESSED.sub(r"\1", s)
            if collapse:
                s = re.sub(r"\b(something|someone)(?:'s)?(?:\s+\1\b)+", r"\1", s)
            res.append(s)
        return res

    return abstract_sentences


def install(spec):
    kw = {}
    for part in filter(None, spec.split(",")):
        k, _, v = part.partition("=")
        kw[k] = v if k == "rule" else v.lower() in ("1", "true", "yes")
    if kw.get("rule") == "none":
        kw["rule"] = None
    # The variants start from the abstraction before: the mentions of the graph's concepts only.
    mod.abstract_other_nouns = lambda s: s
    mod.abstract_sentences = variant(**kw)


if __name__ == "__main__":
    spec = sys.argv[1]
    import os

    floor = os.environ.get("FLOOR")
    if floor:
        from dri.mapping import abstract_sentences as mod

        mod.UNRELATED = float(floor)
    power = os.environ.get("POWER")
    if power:
        import numpy as np

        from dri.mapping import abstract_sentences as mod2
        from dri.mapping.blas import product

        def clause_context(source, target, s, t, weight):
            out = np.ones((len(s.relations), len(t.relations)))
            if not s.relations or not t.relations:
                return out.tolist()
            a, first = mod2._relation_rows(source, s)
            b, second = mod2._relation_rows(target, t)
            if len(a) and len(b):
                own = np.clip((product(a, b.T) - mod2.UNRELATED) / (1.0 - mod2.UNRELATED), 0.0, 1.0) ** float(
                    power
                )
                out[np.ix_(first, second)] = 1.0 - weight + weight * own
            return out.tolist()

        mod2.clause_context = clause_context
        import dri.mapping.mapper as mm

        mm.clause_context = clause_context
    install(spec)
    import bench_validity

    sys.exit(
        bench_validity.main(
            [*sys.argv[2:], "--label", spec + " floor " + str(floor) + " power " + str(power)]
        )
    )
