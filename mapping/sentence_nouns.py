"""The nouns of a sentence that the graph made no concept of, abstracted to roles.

:mod:`mapping.abstract_sentences` abstracts the mentions of the graph's noun
concepts; the nouns the extractor made no concept of ("piles of *work*", a
name, the object of a prepositional phrase it dropped) would stay, and would
draw the clause context toward a look-alike that shares them. Without parsing
again, each remaining word is read from WordNet:

* a word that SemCor tags more often as a noun than as a verb and adjective
  together (untagged: that has more noun senses than verb and adjective
  senses) becomes *something* ("years", "water", "crime"; not "work" or
  "meeting", verbs as often as nouns) -- unless it could be a verb where
  one is expected: after *to*, a modal or auxiliary, a pronoun or a role
  ("to face", "must practice", "it shapes"), or first in the sentence as a
  verb lemma (an imperative, "Scoop the coffee");
* a capitalised word inside the sentence (not its first) that WordNet does
  not list as a verb or adjective is a name and becomes *someone* (a name
  that starts a sentence is most often its subject, which the extractor
  made a PERSON concept of already);
* a number becomes *something*.

Function words (determiners, pronouns, prepositions, conjunctions,
auxiliaries; "a", "as", "it" are nouns in WordNet) stay, as do verbs,
adjectives and adverbs. A possessive keeps its ``'s`` (the determiner rules
of :mod:`mapping.abstract_sentences` remove it after). Measured against
abstracting only words that are nothing but nouns in WordNet, with pronouns
and repeated roles folded, and with a determiner forcing a noun, in
docs/mapping.md.
"""

from __future__ import annotations

import functools
import re

from dri.mapping.wordnet import wordnet

__all__ = ["abstract_other_nouns"]

_ROLES = frozenset({"someone", "something"})
#: Determiners, pronouns, prepositions, conjunctions, auxiliaries and function adverbs.
_FUNCTION_TEXT = """
    a an the this that these those each every either neither some any no all both few many much more most
    several such other another own same enough
    i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its
    itself we us our ours ourselves they them their theirs themselves who whom whose which what whatever
    whoever one ones someone somebody anyone anybody anything everyone everybody everything nobody
    nothing none noone
    about above across after against along amid among around as at before behind below beneath beside
    besides between beyond by despite down during except for from in inside into like near of off on onto
    out outside over past per since than through throughout till to toward towards under underneath unlike
    until up upon via with within without
    and or but nor so yet if because although though unless whereas while whether when whenever where
    wherever why how once
    be am is are was were been being have has had having do does did done doing can could may might must
    shall should will would ca wo
    not never now then there here thus hence also just only even still very too quite rather already again
    ever almost perhaps else back away together meanwhile hereafter somewhere nowhere anywhere everywhere
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
#: After these a word that can be a verb is read as one ("to face", "must practice", "it shapes").
_VERB_CUES = "to can could will would shall should may might must do does did not n't he she it they we i you"
_BEFORE_VERBS = frozenset([*_VERB_CUES.split(), "someone", "something", "who", "which", "that"])
_WORD = re.compile(r"(?<![\w'’-])([A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|\d[\d.,]*\d|\d)(?![\w-])")


@functools.lru_cache(maxsize=65536)
def _readings(word: str) -> tuple[bool, bool, bool]:
    """(mostly a noun, can be a verb, can be a verb or adjective) for a lower-case word."""
    wn = wordnet()
    senses = {pos: wn.sense_counts(word, pos) for pos in ("n", "v", "a")}
    tags = {pos: sum(c for _, c in found) for pos, found in senses.items()}
    nouns, others = len(senses["n"]), len(senses["v"]) + len(senses["a"])
    if tags["n"] or tags["v"] or tags["a"]:
        mostly_noun = nouns > 0 and tags["n"] > tags["v"] + tags["a"]
    else:
        mostly_noun = nouns > others
    return mostly_noun, bool(senses["v"]), others > 0


def _role(word: str, at: int, before: str) -> str | None:
    """The role that replaces ``word`` (its possessive ``'s`` excluded), or None if it stays."""
    low = word.lower()
    if low in _ROLES or low in _FUNCTION_WORDS:
        return None
    if word[0].isdigit():
        return "something"
    mostly_noun, verb, verb_or_adjective = _readings(low)
    if at > 0 and word[0].isupper() and not verb_or_adjective:
        return "someone"
    if verb and (before in _BEFORE_VERBS or (at == 0 and wordnet().has_lemma(low, "v"))):
        return None
    return "something" if mostly_noun else None


def abstract_other_nouns(sentence: str) -> str:
    """``sentence`` with the nouns, names and numbers that are not yet roles abstracted (see the module docstring)."""

    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        possessive = ""
        if len(word) > 2 and word[-2] in "'’" and word[-1] in "sS":
            word, possessive = word[:-2], word[-2:]
        before = sentence[: match.start()].split()
        previous = before[-1].lower().strip(",;:") if before else ""
        role = _role(word, match.start(), previous)
        return match.group(0) if role is None else role + possessive

    return _WORD.sub(replace, sentence)
