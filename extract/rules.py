"""Subject-verb-object rules over spaCy dependency parses.

The ROS builder of Dr Inventor applies rules in the manner of Agarwal et al.
to each sentence's dependency tree to get noun-verb-noun triples (Hurley et
al., EGPAI 2016, section 4, "ROS Generation from Text Mining Framework
Results"). These are the rules, on spaCy's ClearNLP-style labels:

Predicates
    A verb (or a copula ``AUX``) with an ``nsubj``/``nsubjpass`` child. A verb
    conjoined to such a predicate without a subject of its own shares its
    subjects ("A designs and builds B").
Subjects
    ``nsubj`` and ``nsubjpass``, each expanded over its conjuncts, so "A and
    B use C" gives two triples.
Passive
    Normalised so the agent is the subject: "the planets are attracted by
    the sun" gives ``(sun, attract, planet)``. Without an agent the passive
    subject stays the subject of prepositional objects: "the method is based
    on graphs" gives ``(method, base_on, graph)``.
Objects
    ``dobj`` and ``attr`` under the verb's label, and the ``pobj`` of each
    ``prep`` child under ``<verb>_<preposition>`` -- always the verb *lemma*
    (``base_on``, not ``based_on``), so inflections never split a relation.
    Each expanded over its conjuncts.
Relation labels
    The verb lemma; an ``xcomp`` chain is followed to the verb that carries
    the objects and merged, with its infinitive marker: "tried to identify"
    is ``try_to_identify``. Particles join: "take over" is ``take_over``.
    Negation and auxiliaries are not part of the label.
Concepts
    The lower-case lemma of the noun head, joined with "_" to up to two
    directly preceding ``compound`` nouns, as WordNet writes multiword
    lemmas: "solar systems" gives ``solar_system``. Tokens without a letter
    (numbers, symbols) are not concepts.
Missing arguments
    A triple whose subject or object is missing or is not a noun is
    **dropped**, never given a placeholder node: placeholders become hubs
    that map onto each other and inflate similarity scores.
Pronouns
    A third-person personal or demonstrative pronoun (it, they, them, this,
    these, that, those, he, she, ...) resolves to a noun before it in the
    same or the previous sentence that agrees in number, where spaCy's
    morphology gives a number. Subjects come first, as in centering theory's
    preference for the previous utterance's subject: the most recent
    agreeing subject (``nsubj``, ``nsubjpass``, a passive's agent, or their
    conjuncts) wins, else the most recent agreeing noun. So "The sun is a
    star. It shines." resolves "It" to the sun, not the star. A relative pronoun (which,
    that, who, whom) inside a relative clause resolves to the noun the clause
    modifies; a relative clause with a subject of its own and no object
    ("the model (that) the researchers proposed") takes the modified noun as
    its object. First- and second-person pronouns (I, we, you) and indefinite
    ones (something, each) have no noun antecedent and are not resolved, like
    any other pronoun without a candidate: their triples are dropped. The
    pronoun's surface form joins the antecedent concept's ``mentions``.

Every rule looks only at a token's children, so extraction is linear in the
sentence length.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # For the annotations only: spaCy takes seconds to import, and the rules
    # receive parsed tokens, so a caller that never parses need not load it.
    from spacy.tokens import Doc, Token

__all__ = ["Antecedent", "Mention", "SentenceTriples", "Triple", "concept_mention", "sentence_triples"]

_NOUNS = frozenset({"NOUN", "PROPN"})
_PREDICATES = frozenset({"VERB", "AUX"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_DIRECT_OBJECTS = frozenset({"dobj", "attr"})
_MAX_COMPOUNDS = 2

_SINGULAR = frozenset({"it", "this", "that", "he", "she", "him", "her", "itself", "himself", "herself"})
_PLURAL = frozenset({"they", "them", "these", "those", "themselves"})
_RELATIVE = frozenset({"which", "that", "who", "whom"})


@dataclass(frozen=True)
class Mention:
    """A concept as mentioned: its lemma, the words used, its grammatical number."""

    lemma: str
    text: str
    number: str | None = None


@dataclass(frozen=True)
class Triple:
    subject: Mention
    relation: str
    object: Mention


@dataclass(frozen=True)
class Antecedent:
    """A noun mention a later pronoun may refer to, and whether it was a subject."""

    mention: Mention
    subject: bool = False


@dataclass
class SentenceTriples:
    """The triples of one sentence and its noun mentions (antecedents for the next)."""

    triples: list[Triple] = field(default_factory=list)
    nouns: list[Antecedent] = field(default_factory=list)


def _clean(word: str) -> str:
    return word.strip().lower().strip(".,;:!?\"'()[]{}")


def _number(token: Token) -> str | None:
    values = token.morph.get("Number")
    return values[0] if values else None


def concept_mention(token: Token) -> Mention | None:
    """The concept a noun token names, or ``None`` if it has no letters."""
    head = _clean(token.lemma_ or token.text)
    if not any(ch.isalpha() for ch in head):
        return None
    compounds = []
    # Direct compound children immediately left of the head, nearest first.
    for child in reversed(list(token.lefts)):
        if child.dep_ != "compound" or child.pos_ not in _NOUNS or len(compounds) == _MAX_COMPOUNDS:
            break
        word = _clean(child.lemma_ or child.text)
        if not any(ch.isalpha() for ch in word):
            break
        compounds.append(child)
    compounds.reverse()
    lemma = "_".join([_clean(c.lemma_ or c.text) for c in compounds] + [head])
    text = " ".join([c.text for c in compounds] + [token.text])
    return Mention("_".join(lemma.split()), text, _number(token))


class _Resolver:
    """Noun mentions of the previous and current sentence, for pronouns."""

    def __init__(self, doc: Doc, previous: Sequence[Antecedent]) -> None:
        self.previous = previous
        self.nouns: list[tuple[int, Antecedent]] = []
        for token in doc:
            if token.pos_ in _NOUNS and token.dep_ != "compound":
                mention = concept_mention(token)
                if mention is not None:
                    self.nouns.append((token.i, Antecedent(mention, _is_subject(token))))

    def _antecedent(self, token: Token, number: str | None) -> Mention | None:
        before = [a for i, a in self.nouns if i < token.i]
        agreeing = [
            a
            for a in reversed(list(self.previous) + before)
            if number is None or a.mention.number is None or a.mention.number == number
        ]
        for candidate in agreeing:
            if candidate.subject:
                return candidate.mention
        return agreeing[0].mention if agreeing else None

    def mention(self, token: Token, depth: int = 0) -> Mention | None:
        if token.pos_ in _NOUNS:
            return concept_mention(token)
        if token.pos_ != "PRON" or depth > 3:
            return None
        word = token.lower_
        if word in _RELATIVE:
            clause = token
            for _ in range(4):
                if clause.dep_ == "relcl":
                    found = self.mention(clause.head, depth + 1)
                    return Mention(found.lemma, token.text, found.number) if found else None
                if clause.head is clause:
                    break
                clause = clause.head
            if word not in _SINGULAR:
                return None
        if word in _SINGULAR:
            found = self._antecedent(token, "Sing")
        elif word in _PLURAL:
            found = self._antecedent(token, "Plur")
        else:
            return None
        return Mention(found.lemma, token.text, found.number) if found else None


def _is_subject(token: Token) -> bool:
    """Whether a noun is a logical subject: nsubj, nsubjpass, an agent, or a conjunct of one."""
    while token.dep_ == "conj" and token.head is not token:
        token = token.head
    if token.dep_ in _SUBJECTS:
        return True
    return token.dep_ == "pobj" and token.head.dep_ == "agent"


def _expand(tokens: Iterable[Token]) -> list[Token]:
    """The tokens and their later conjuncts, each once, in order."""
    seen: dict[int, Token] = {}
    for token in tokens:
        seen.setdefault(token.i, token)
        for conjunct in token.conjuncts:
            if conjunct.i > token.i:
                seen.setdefault(conjunct.i, conjunct)
    return list(seen.values())


def _subjects(verb: Token) -> tuple[list[Token], bool]:
    """The subject tokens of a predicate and whether it is passive."""
    subjects = [c for c in verb.children if c.dep_ in _SUBJECTS]
    own_aux = [c.dep_ for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if subjects:
        passive = any(c.dep_ == "nsubjpass" for c in subjects) or "auxpass" in own_aux
        return subjects, passive
    head = verb
    # A conjoined verb shares the subjects of the first verb of its coordination.
    while head.dep_ == "conj" and head.head.pos_ in _PREDICATES and head.head is not head:
        head = head.head
        inherited = [c for c in head.children if c.dep_ in _SUBJECTS]
        if inherited:
            head_passive = any(c.dep_ == "nsubjpass" for c in inherited)
            if "auxpass" in own_aux:
                passive = True
            elif own_aux:
                passive = False
            else:
                passive = head_passive and verb.tag_ == "VBN"
            return inherited, passive
    return [], False


def _verb_label(verb: Token) -> str:
    parts = [_clean(verb.lemma_ or verb.text)]
    parts.extend(_clean(c.text) for c in verb.children if c.dep_ == "prt")
    return "_".join(p for p in parts if p)


def _chain(verb: Token) -> tuple[Token, str]:
    """Follow an ``xcomp`` chain; ``(verb carrying the objects, merged label)``."""
    label = _verb_label(verb)
    current = verb
    for _ in range(4):
        if any(c.dep_ in _DIRECT_OBJECTS for c in current.children):
            break
        nxt = next(
            (
                c
                for c in current.children
                if c.dep_ == "xcomp" and c.pos_ == "VERB" and not any(g.dep_ in _SUBJECTS for g in c.children)
            ),
            None,
        )
        if nxt is None:
            break
        marker = [_clean(g.text) for g in nxt.children if g.dep_ == "aux" and g.tag_ == "TO"]
        label = "_".join([label, *marker, _verb_label(nxt)])
        current = nxt
    return current, label


def _prepositional(verb: Token) -> list[tuple[str, Token]]:
    out = []
    for prep in verb.children:
        if prep.dep_ == "prep":
            word = _clean(prep.text)
            for obj in _expand(c for c in prep.children if c.dep_ == "pobj"):
                out.append((word, obj))
    return out


def _gapped_object(verb: Token, subjects: list[Token]) -> bool:
    """A relative clause whose object is the noun it modifies."""
    return (
        verb.dep_ == "relcl"
        and verb.head.pos_ in _NOUNS
        and not any(s.lower_ in _RELATIVE for s in subjects)
        and not any(c.dep_ in ("prep", "dative", "ccomp", "xcomp") for c in verb.children)
    )


def sentence_triples(doc: Doc, previous: Sequence[Antecedent] = ()) -> SentenceTriples:
    """The triples of one parsed sentence.

    ``previous`` holds the noun mentions of the sentence before, the only
    ones a pronoun may reach back to; pass the returned ``nouns`` on to the
    next sentence.
    """
    resolver = _Resolver(doc, previous)
    triples: list[Triple] = []

    def emit(subject: Token, relation: str, obj: Token) -> None:
        s = resolver.mention(subject)
        o = resolver.mention(obj)
        if s is not None and o is not None and relation:
            triples.append(Triple(s, relation, o))

    for token in doc:
        if token.pos_ not in _PREDICATES or token.dep_ in ("aux", "auxpass"):
            continue
        subject_tokens, passive = _subjects(token)
        if not subject_tokens:
            continue
        subjects = _expand(subject_tokens)
        verb, label = _chain(token)
        if passive:
            agents = _expand(
                g for c in verb.children if c.dep_ == "agent" for g in c.children if g.dep_ == "pobj"
            )
            if agents:
                for agent in agents:
                    for subject in subjects:
                        emit(agent, label, subject)
                continue
            # "which are called base classes": the predicate noun is the object.
            for obj in _expand(c for c in verb.children if c.dep_ == "oprd"):
                for subject in subjects:
                    emit(subject, label, obj)
        else:
            objects = _expand(c for c in verb.children if c.dep_ in _DIRECT_OBJECTS)
            if not objects and _gapped_object(token, subject_tokens):
                # "the model (that) the researchers proposed": the modified noun is the object.
                objects = [token.head]
            for obj in objects:
                for subject in subjects:
                    emit(subject, label, obj)
        for prep, obj in _prepositional(verb):
            for subject in subjects:
                emit(subject, f"{label}_{prep}", obj)
    return SentenceTriples(triples, [a for _, a in resolver.nouns])
