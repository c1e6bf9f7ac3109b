"""Subject-verb-object rules over spaCy dependency parses.

The ROS builder of Dr Inventor applies rules in the manner of Agarwal et al.
to each sentence's dependency tree to get noun-verb-noun triples (Hurley et
al., EGPAI 2016, section 4, "ROS Generation from Text Mining Framework
Results"). These are the rules, on spaCy's ClearNLP-style labels; the full
account with examples and measured effects is ``docs/extraction.md``.

Predicates
    A verb (or a copula ``AUX``) with an ``nsubj``/``nsubjpass`` child. A verb
    conjoined to such a predicate without a subject of its own shares its
    subjects ("A designs and builds B"); an "in order to" clause takes the
    subjects of the clause it belongs to. A participle modifying a noun
    (``acl``) takes the noun as its subject, as a passive for a past
    participle: "a bus driving down the road" gives ``(bus, drive_down,
    road)``, "a ball thrown by the boy" ``(boy, throw, ball)``. A bare-form
    main verb without a subject is an imperative, whose subject is ``you``.
    So is a subjectless purpose infinitive or participle under an imperative
    ("Heat the oven to bake the bread" gives ``(you, bake, bread)``). An
    extraposed "it" ("It is better to use a map") refers to nothing and
    gives no triple; the infinitive it stands for has the generic subject
    ``you``. Other subjectless adjuncts give nothing (docs/extraction.md:
    giving them their clause's subject was measured and not kept).
    A sentence without any predicate whose root is a noun (a caption or
    headline) places it: "Red bus on the side of the street" gives ``(bus,
    be_on, side)``.
Subjects
    ``nsubj`` and ``nsubjpass``, each expanded over its conjuncts.
Passive
    Normalised so the agent is the subject: "the planets are attracted by
    the sun" gives ``(sun, attract, planet)``. Without an agent the passive
    subject stays the subject: "the method is based on graphs" gives
    ``(method, base_on, graph)``.
Objects
    ``dobj`` and ``attr`` under the verb's label ("X is a Y" under ``isa``);
    adjective complements (``acomp``: "the wall was weak") as adjective
    concepts (``pos="a"``): ``(wall, be, weak)``; the ``pobj`` of each
    ``prep`` (or ``dative``) child under ``<verb>_<preposition>``. Each
    expanded over its conjuncts.
One-argument relations
    A predicate with a subject that yields no triple ("the wall collapsed",
    "the glass was broken") becomes a relation with a subject and no object,
    except the light verbs be/have/do/get. Existential "there is a cat"
    gives ``(cat, exist)``, or ``(cat, be_in, garden)`` with a place.
Possessives
    "the hawk's feathers", "my sister" give ``(hawk, have, feather)``,
    ``(i, have, sister)``.
Relation labels
    The verb's lemma, a WordNet verb lemma whenever WordNet has one
    (:func:`extract.lexicon.verb_lemma`: "hated" is *hate*, not *hat*); an
    ``xcomp`` chain is followed to the verb that carries the objects and
    merged, with its infinitive marker: "tried to identify" is
    ``try_to_identify``. Particles join: "take over" is ``take_over``. A
    negated verb (not, never, n't) ends in ``_not``: "did not eat" is
    ``eat_not``, which the similarity reads as *eat* with a differing tail,
    half as similar to ``eat`` as ``eat`` is.
Concepts
    The lower-case lemma of the noun head, joined with "_" to up to two
    directly preceding ``compound`` nouns: "solar systems" gives
    ``solar_system``. A hyphenated word is one word: a hyphenated head keeps
    its hyphen (``by-product``); a hyphenated modifier ("a part-time
    worker") is an attribute, not part of the concept, which is ``worker``
    (the mention keeps "part-time worker"). Named entities (spaCy NER:
    PERSON, NORP, FAC, ORG, GPE, LOC, PRODUCT, EVENT, WORK_OF_ART, LAW,
    LANGUAGE) are named by their words (``new_york``) and carry ``entity``
    and ``wordnet_lemma`` (:data:`ENTITY_WORDNET`). Tokens without a letter
    are not concepts.
Narrators
    I/me/my/mine/myself are the concept ``i``, we/us/our/... ``we`` and
    you/your/... ``you``, each a PERSON compared as ``person``; so are
    he/him/his (``he``) and she/her (``she``) when no noun before them
    agrees, the understood subject of an imperative ("Cut the fabric."
    gives ``(you, cut, fabric)``), the generic subject "one", and someone/everyone/anyone (and
    their -body forms). something/everything/anything are concepts compared
    as ``thing``. Negative ones (nothing, nobody) are not participants and
    give nothing.
Missing arguments
    An argument that is missing or cannot be resolved is never given a
    placeholder node: placeholders become hubs that map onto each other and
    inflate similarity scores.
Pronouns
    A third-person pronoun (it, they, them, this, these, that, those, he,
    she, its, his, their, ...) resolves to a noun before it in the same or
    the previous sentence that agrees in number. Subjects come first, as in
    centering theory: the most recent agreeing subject wins, else the most
    recent agreeing noun. he/she/him/her/his prefer people (PERSON
    entities, and nouns whose first WordNet sense is a person) when there
    are any; it/its never take one. Binding theory: a non-reflexive
    object pronoun never resolves to the subject of its own clause
    (principle B: "The dog found the bone and buried it" gives
    ``(dog, bury, bone)``), a reflexive one always does (principle A). A
    relative pronoun resolves to the noun its clause modifies; a relative
    clause with a subject of its own and no object takes the modified noun
    as its object. The pronoun's surface form joins the concept's mentions.
Higher-order relations
    Clauses linked by a connective give a :class:`Link` between their
    predicates (the builder turns it into an order-2 relation between their
    first relations): ``cause`` (because, since; so, therefore, thus, hence,
    consequently, as a result), ``purpose`` (in order to, so that, a bare
    purpose infinitive: "Split the rays to destroy the tumour"),
    ``before``/``after`` (before; after, when; then; afterwards, after
    that), ``contrast`` (but, yet, however; although, though). The subject
    is the cause, the earlier event, or the main clause (purpose,
    contrast). A connective that opens a sentence links its main clause to
    the previous sentence's.

Every rule looks only at a token's children and a few neighbours, so
extraction is linear in the sentence length.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # For the annotations only: spaCy takes seconds to import, and the rules
    # receive parsed tokens, so a caller that never parses need not load it.
    from spacy.tokens import Doc, Token

from dri.extract.lexicon import is_person_noun, is_wordnet_lemma, verb_lemma

__all__ = [
    "ENTITY_WORDNET",
    "Antecedent",
    "Link",
    "Mention",
    "SentenceTriples",
    "Triple",
    "concept_mention",
    "sentence_triples",
]

_NOUNS = frozenset({"NOUN", "PROPN"})
_PREDICATES = frozenset({"VERB", "AUX"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
#: Present and past participles, which can modify a noun as its predicate.
_PARTICIPLES = frozenset({"VBG", "VBN"})
_MAX_COMPOUNDS = 2

_SINGULAR = frozenset({"it", "this", "that", "he", "she", "him", "her", "its", "his"})
_PLURAL = frozenset({"they", "them", "these", "those", "their"})
_REFLEXIVE = frozenset(
    {"itself", "himself", "herself", "themselves", "myself", "ourselves", "yourself", "yourselves"}
)
#: Pronouns that prefer a PERSON antecedent, and those that refuse one.
_PERSONAL = frozenset({"he", "she", "him", "her", "his"})
_NEUTER = frozenset({"it", "its"})
_RELATIVE = frozenset({"which", "that", "who", "whom"})
#: Verbs of asking, making and letting, whose object is the subject of their
#: infinitive complement ("ask him to leave"); after any other verb with an
#: object the infinitive is its purpose ("Use a knife to cut the bread").
_OBJECT_CONTROL = frozenset(
    {
        "ask", "tell", "persuade", "convince", "force", "allow", "permit", "want", "order",
        "command", "urge", "encourage", "invite", "remind", "teach", "expect", "require",
        "cause", "enable", "help", "get", "advise", "warn", "instruct", "beg", "compel",
        "lead", "need", "like", "love", "prefer", "inspire", "push", "drive", "train",
    }
)  # fmt: skip
#: Verbs too light to stand alone as one-argument relations ("the problem is").
_LIGHT = frozenset({"be", "have", "do", "get"})
_NARRATORS = {
    **dict.fromkeys(("i", "me", "my", "mine", "myself"), ("i", "Sing")),
    **dict.fromkeys(("we", "us", "our", "ours", "ourselves"), ("we", "Plur")),
    **dict.fromkeys(("you", "your", "yours", "yourself", "yourselves"), ("you", None)),
}

#: Indefinite pronouns that still name a participant: (lemma, entity, WordNet stand-in).
_INDEFINITE = {
    **{
        w: (w, "PERSON", "person")
        for w in ("someone", "somebody", "everyone", "everybody", "anyone", "anybody")
    },
    **{w: (w, None, "thing") for w in ("something", "everything", "anything")},
}

#: he/she without an antecedent still name a person.
_UNRESOLVED_PEOPLE = {
    **dict.fromkeys(("he", "him", "his"), ("he", "Sing")),
    **dict.fromkeys(("she", "her"), ("she", "Sing")),
}

#: The WordNet noun a named entity is compared by, per spaCy NER class.
ENTITY_WORDNET = {
    "PERSON": "person",
    "NORP": "people",
    "FAC": "facility",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
}

# Connectives: lemma of the higher-order relation, and which clause is its subject.
# "sub" = the subordinate (or second) clause is the subject, "main" = the main (or first) clause is.
_SUBORDINATORS = {
    "because": ("cause", "sub"),
    "since": ("cause", "sub"),
    "although": ("contrast", "main"),
    "though": ("contrast", "main"),
    "after": ("after", "sub"),
    "when": ("after", "sub"),
    "before": ("before", "main"),
}
#: Adverbs (and "so"/"but" as conjunctions) linking a clause to the one before it: first clause is subject.
_ADVERBIALS = {
    "so": "cause",
    "therefore": "cause",
    "thus": "cause",
    "hence": "cause",
    "consequently": "cause",
    "then": "before",
    "afterwards": "after",
    "but": "contrast",
    "however": "contrast",
    "yet": "contrast",
}
#: Prepositional phrases that do the same: "as a result", "after that".
_PHRASES = {("as", "result"): "cause", ("after", "that"): "after", ("after", "this"): "after"}
_CONNECTIVE_PHRASES = frozenset([*_PHRASES, ("in", "order")])


@dataclass(frozen=True)
class Mention:
    """A concept as mentioned: its lemma, the words used, its grammatical number,
    part of speech (``n`` or ``a``), NER class and WordNet stand-in, if any."""

    lemma: str
    text: str
    number: str | None = None
    pos: str = "n"
    entity: str | None = None
    wordnet_lemma: str | None = None

    def said_as(self, text: str) -> Mention:
        return Mention(self.lemma, text, self.number, self.pos, self.entity, self.wordnet_lemma)


#: The understood subject of an imperative ("Cut the fabric."): you, a person.
_ADDRESSEE = Mention("you", "you", None, "n", "PERSON", "person")


@dataclass(frozen=True)
class Triple:
    """A relation: ``object`` is ``None`` for a one-argument relation.
    ``clause`` is the index of the predicate token it came from (-1: none)."""

    subject: Mention
    relation: str
    object: Mention | None
    clause: int = -1


@dataclass(frozen=True)
class Link:
    """A higher-order relation between two clauses (predicate token indices;
    -1 is the main clause of the previous sentence); ``first`` is its subject."""

    lemma: str
    first: int
    second: int


@dataclass(frozen=True)
class Antecedent:
    """A noun mention a later pronoun may refer to, and whether it was a subject."""

    mention: Mention
    subject: bool = False


@dataclass
class SentenceTriples:
    """The triples of one sentence, its clause links, its main clause and its
    noun mentions (antecedents for the next)."""

    triples: list[Triple] = field(default_factory=list)
    nouns: list[Antecedent] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    main: int | None = None


def _clean(word: str) -> str:
    return word.strip().lower().strip(".,;:!?\"'()[]{}")


def _number(token: Token) -> str | None:
    values = token.morph.get("Number", [])
    return values[0] if values else None


def _hyphenated(token: Token) -> bool:
    """Whether ``token`` is part of a hyphenated word ("part-time")."""
    doc = token.doc
    before = token.i > 0 and doc[token.i - 1].text == "-" and not doc[token.i - 1].whitespace_
    after = token.i + 1 < len(doc) and doc[token.i + 1].text == "-" and not token.whitespace_
    return before or after or any(c.text == "-" and not c.whitespace_ for c in token.children)


def _entity(token: Token) -> Mention | None:
    """The named entity ``token`` belongs to, as a concept named by its words."""
    label = token.ent_type_
    if label not in ENTITY_WORDNET:
        return None
    doc = token.doc
    start, end = token.i, token.i + 1
    while start > 0 and doc[start].ent_iob_ == "I":
        start -= 1
    while end < len(doc) and doc[end].ent_iob_ == "I":
        end += 1
    words = [_clean(t.text) for t in doc[start:end] if t.pos_ not in ("DET", "PART", "PUNCT")]
    words = [w for w in words if any(ch.isalpha() for ch in w)]
    if not words:
        return None
    text = doc[start:end].text
    return Mention("_".join("_".join(words).split()), text, _number(token), "n", label, ENTITY_WORDNET[label])


def _head_word(token: Token) -> str:
    """The noun's lemma; a hyphenated noun ("by-product") keeps its hyphens."""
    doc = token.doc
    head = _clean(token.lemma_ or token.text)
    i = token.i
    while i >= 2 and doc[i - 1].text == "-" and not doc[i - 1].whitespace_ and not doc[i - 2].whitespace_:
        head = f"{_clean(doc[i - 2].text)}-{head}"
        i -= 2
    return head


def concept_mention(token: Token) -> Mention | None:
    """The concept a noun token names, or ``None`` if it has no letters."""
    entity = _entity(token)
    if entity is not None:
        return entity
    head = _head_word(token)
    if not any(ch.isalpha() for ch in head):
        return None
    compounds: list[Token] = []
    # Direct compound children immediately left of the head, nearest first; a
    # hyphenated modifier ("part-time") is an attribute and ends the compound.
    for child in reversed(list(token.lefts)):
        if child.dep_ != "compound" or child.pos_ not in _NOUNS or len(compounds) == _MAX_COMPOUNDS:
            break
        word = _clean(child.lemma_ or child.text)
        if (
            not any(ch.isalpha() for ch in word)
            or _hyphenated(child)
            or child.i >= token.i - head.count("-") * 2
        ):
            break
        compounds.append(child)
    compounds.reverse()
    lemma = "_".join([_clean(c.lemma_ or c.text) for c in compounds] + [head])
    first = compounds[0].i if compounds else token.i - head.count("-") * 2
    text = token.doc[first : token.i + 1].text
    if not compounds:
        # Modifiers stay visible in the mention: "part-time worker".
        mods = [
            c for c in token.lefts if _hyphenated(c) and c.dep_ in ("compound", "amod", "npadvmod", "nmod")
        ]
        if mods:
            text = token.doc[min(t.i for m in mods for t in m.subtree) : token.i + 1].text
    return Mention("_".join(lemma.split()), text, _number(token))


def adjective_mention(token: Token) -> Mention | None:
    word = _clean(token.lemma_ or token.text)
    if not any(ch.isalpha() for ch in word):
        return None
    return Mention(word, token.text, None, "a")


def _gerund_mention(token: Token) -> Mention:
    """A gerund as a concept: the -ing noun where WordNet has one ("swimming"),
    else the verb's lemma as a noun ("adjusting" is *adjust*)."""
    word = _clean(token.lower_)
    lemma = word if is_wordnet_lemma(word, "n") else verb_lemma(token.lower_, _clean(token.lemma_ or word))
    return Mention(lemma, token.text, "Sing", "n")


def _is_person(mention: Mention) -> bool:
    return mention.entity == "PERSON" if mention.entity else is_person_noun(mention.lemma)


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

    def _antecedent(self, token: Token, number: str | None, exclude: str | None) -> Mention | None:
        before = [a for i, a in self.nouns if i < token.i]
        agreeing = [
            a
            for a in reversed(list(self.previous) + before)
            if (number is None or a.mention.number is None or a.mention.number == number)
            and a.mention.lemma != exclude
        ]
        word = token.lower_
        if word in _PERSONAL:
            # People first. Without one, the nearest agreeing noun: taking the
            # unnamed protagonist instead ("he") makes a hub that every story
            # shares, which lowered AnaloBench S10 accuracy from 0.34 to 0.28.
            people = [a for a in agreeing if _is_person(a.mention)]
            agreeing = people or agreeing
        elif word in _NEUTER:
            agreeing = [a for a in agreeing if not _is_person(a.mention)]
        for candidate in agreeing:
            if candidate.subject:
                return candidate.mention
        return agreeing[0].mention if agreeing else None

    def mention(self, token: Token, depth: int = 0, exclude: str | None = None) -> Mention | None:
        """The concept ``token`` stands for; ``exclude`` is a lemma a pronoun
        may not resolve to (its own clause's subject: binding principle B)."""
        if token.pos_ in _NOUNS:
            return concept_mention(token)
        word = token.lower_
        if token.tag_ == "VBG" and token.dep_ == "csubj":
            return _gerund_mention(token)
        if word == "one" and token.dep_ in _SUBJECTS:
            # Generic "one" ("One moves a pawn"): a person.
            return Mention("one", token.text, "Sing", "n", "PERSON", "person")
        if token.pos_ != "PRON" or depth > 3:
            return None
        if word in _NARRATORS:
            lemma, number = _NARRATORS[word]
            return Mention(lemma, token.text, number, "n", "PERSON", "person")
        if word in _INDEFINITE:
            lemma, entity, stand_in = _INDEFINITE[word]
            return Mention(lemma, token.text, "Sing", "n", entity, stand_in)
        if word in _RELATIVE:
            clause = token
            for _ in range(4):
                if clause.dep_ == "relcl":
                    found = self.mention(clause.head, depth + 1)
                    return found.said_as(token.text) if found else None
                if clause.head is clause:
                    break
                clause = clause.head
            if word not in _SINGULAR:
                return None
        if word in _SINGULAR:
            found = self._antecedent(token, "Sing", exclude)
        elif word in _PLURAL:
            found = self._antecedent(token, "Plur", exclude)
        else:
            return None
        if found is None and word in _UNRESOLVED_PEOPLE:
            # A story's unnamed protagonist ("He walked in."): a person, like a narrator.
            lemma, number = _UNRESOLVED_PEOPLE[word]
            if lemma != exclude:
                return Mention(lemma, token.text, number, "n", "PERSON", "person")
        return found.said_as(token.text) if found else None


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


def _purpose_head(verb: Token) -> Token | None:
    """The predicate an "in order to" clause belongs to ("left ... in order to catch")."""
    order = verb.head
    if verb.dep_ in ("acl", "advcl", "xcomp") and order.lower_ == "order" and order.head.lower_ == "in":
        head = order.head.head
        return head if head.pos_ in _PREDICATES else None
    return None


def _subjects(verb: Token) -> tuple[list[Token], bool]:
    """The subject tokens of a predicate and whether it is passive."""
    subjects = [c for c in verb.children if c.dep_ in _SUBJECTS]
    if not subjects:
        # A parse that hangs the subject on the auxiliary ("A man with a hat is dancing").
        subjects = [
            g
            for c in verb.children
            if c.dep_ in ("aux", "auxpass")
            for g in c.children
            if g.dep_ in _SUBJECTS
        ]
    if not subjects:
        # A gerund clause as subject: "Playing sport can lead to injury".
        subjects = [c for c in verb.children if c.dep_ == "csubj" and c.tag_ == "VBG"]
    own_aux = [c.dep_ for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if subjects:
        passive = any(c.dep_ == "nsubjpass" for c in subjects) or "auxpass" in own_aux
        return subjects, passive
    purpose = _purpose_head(verb)
    if purpose is not None:
        # "He left early in order to catch the train": he catches the train.
        return _subjects(purpose)[0], "auxpass" in own_aux
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
    if head.dep_ == "acl" and head.head.pos_ in _NOUNS and head.tag_ in _PARTICIPLES:
        # A participle modifying a noun: "a bus driving down the road" (the noun
        # acts), "a method based on graphs" (the noun is acted on, as a passive).
        return [head.head], verb.tag_ == "VBN"
    return [], False


def _infinitive(verb: Token) -> bool:
    """A to-infinitive: "to attack"."""
    return verb.tag_ == "VB" and any(c.dep_ == "aux" and c.tag_ == "TO" for c in verb.children)


def _extraposed(verb: Token) -> bool:
    """A copula whose "it" stands for a clause that comes later: "It is better to use
    a map", "It is clear that he lied". The "it" refers to nothing."""
    return (
        verb.lemma_ == "be"
        and any(c.dep_ == "nsubj" and c.lower_ == "it" for c in verb.children)
        and any(
            (c.dep_ == "xcomp" and _infinitive(c))
            or (c.dep_ == "ccomp" and any(g.dep_ == "mark" for g in c.children))
            for c in verb.children
        )
    )


def _controller(verb: Token) -> Token | None:
    """The predicate a subjectless clause takes its understood subject from: the
    clause a purpose infinitive or a participle modifies ("Heat the oven to bake
    the bread"), or the verb an infinitive complements when that verb has no
    object ("Try to climb the wall")."""
    head = verb.head
    if head is verb or head.pos_ not in _PREDICATES or any(c.dep_ in _SUBJECTS for c in verb.children):
        return None
    if (verb.dep_ == "advcl" and (verb.tag_ == "VBG" or _infinitive(verb))) or _purpose_complement(verb):
        return head
    if verb.dep_ == "xcomp" and not any(c.dep_ == "dobj" for c in head.children):
        return head
    return None


def _purpose_complement(verb: Token) -> bool:
    """An infinitive the parser hangs on a verb with an object as its complement,
    where it is the verb's purpose: "Use a knife to cut the bread" (the knife is
    not the one who cuts)."""
    head = verb.head
    return (
        verb.dep_ == "xcomp"
        and _infinitive(verb)
        and head.pos_ in _PREDICATES
        and head.lemma_ not in _OBJECT_CONTROL
        and any(c.dep_ == "dobj" for c in head.children)
    )


def _addressed(verb: Token) -> bool:
    """Whether the understood subject of a subjectless verb is the addressee: an
    imperative, a clause controlled by one ("Cut the bread to make toast"), or the
    clause an extraposed "it" stands for ("It is better to use a map"), whose
    generic subject is read as "you"."""
    if _imperative(verb):
        return True
    if verb.dep_ == "xcomp" and _infinitive(verb) and _extraposed(verb.head):
        return True
    head = _controller(verb) if verb.dep_ == "advcl" or _purpose_complement(verb) else None
    for _ in range(4):
        if head is None or any(c.dep_ in _SUBJECTS for c in head.children):
            return False
        if _imperative(head):
            return True
        head = _controller(head)
    return False


def _imperative(verb: Token) -> bool:
    """Whether a subjectless verb is an imperative: a bare-form main verb ("Pour the
    mixture ...") or a verb conjoined to one ("... and hit the ball")."""
    while verb.dep_ == "conj" and verb.head is not verb:
        verb = verb.head
    return (
        verb.dep_ == "ROOT"
        and verb.tag_ == "VB"
        and verb.pos_ == "VERB"
        and not any(c.dep_ in ("aux", "auxpass", "expl", "mark") for c in verb.children)
    )


def _verb_label(verb: Token) -> str:
    parts = [verb_lemma(verb.lower_, _clean(verb.lemma_ or verb.text))]
    parts.extend(_clean(c.text) for c in verb.children if c.dep_ == "prt")
    if any(c.dep_ == "neg" for c in verb.children) or any(
        g.dep_ == "neg" for c in verb.children if c.dep_ in ("aux", "auxpass") for g in c.children
    ):
        parts.append("not")
    return "_".join(p for p in parts if p)


def _chain(verb: Token) -> tuple[Token, str]:
    """Follow an ``xcomp`` chain; ``(verb carrying the objects, merged label)``."""
    label = _verb_label(verb)
    current = verb
    for _ in range(4):
        if any(c.dep_ in ("dobj", "attr", "acomp") for c in current.children):
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
        if prep.dep_ in ("prep", "dative"):
            word = _clean(prep.text)
            objects = [c for c in prep.children if c.dep_ == "pobj"]
            if objects and (word, _clean(objects[0].text)) in _CONNECTIVE_PHRASES:
                continue  # "as a result", "after that", "in order to": a connective, not an argument
            for obj in _expand(objects):
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


def _opening(doc: Doc, token: Token) -> bool:
    """Whether ``token`` opens the sentence (only punctuation or a conjunction before it)."""
    return all(t.pos_ in ("PUNCT", "CCONJ") for t in doc[: token.i])


def _links(doc: Doc, predicates: set[int]) -> list[Link]:
    """Higher-order relations between the clauses (predicate tokens) of a sentence,
    and to the previous sentence when a connective opens this one."""
    links: list[Link] = []

    def add(lemma: str, first: int, second: int) -> None:
        if first != second and (first == -1 or first in predicates) and second in predicates:
            links.append(Link(lemma, first, second))

    for token in doc:
        if token.i not in predicates:
            continue
        words = {c.lower_: c for c in token.children if c.dep_ in ("mark", "advmod", "cc", "prep")}
        head = token.head
        # Subordinate clause: "A because B", "Although A, B", "A so that B".
        if token.dep_ == "advcl" and head.pos_ in _PREDICATES:
            if "so" in words and "that" in words:
                add("purpose", head.i, token.i)
                continue
            for word, (lemma, subject) in _SUBORDINATORS.items():
                if word in words and words[word].i < token.i:
                    add(lemma, token.i, head.i) if subject == "sub" else add(lemma, head.i, token.i)
                    break
            else:
                if _infinitive(token):
                    # "Split the rays to destroy the tumour": a bare purpose infinitive.
                    add("purpose", head.i, token.i)
            continue
        if _purpose_complement(token):
            add("purpose", head.i, token.i)
            continue
        purpose = _purpose_head(token)
        if purpose is not None:
            add("purpose", purpose.i, token.i)
            continue
        # A connective adverb or phrase: "..., so B", "and then B", "But B", "As a result, B".
        found = None
        for child in token.children:
            if child.i > token.i:
                continue
            if child.dep_ in ("advmod", "cc", "mark") and child.lower_ in _ADVERBIALS:
                found = (_ADVERBIALS[child.lower_], child)
            elif child.dep_ == "prep":
                objects = [_clean(c.text) for c in child.children if c.dep_ == "pobj"]
                if objects and (child.lower_, objects[0]) in _PHRASES:
                    found = (_PHRASES[(child.lower_, objects[0])], child)
        if found is None and token.dep_ == "conj":
            # "A but B": the conjunction hangs on the first conjunct.
            ccs = [c for c in head.children if c.dep_ == "cc" and c.i < token.i and c.lower_ in _ADVERBIALS]
            if ccs:
                found = (_ADVERBIALS[ccs[-1].lower_], ccs[-1])
        if found is None:
            # "A, so B" parsed with A as a clausal child of B and "so" hanging on A.
            for child in token.children:
                if child.dep_ in ("ccomp", "parataxis") and child.i < token.i:
                    ccs = [
                        c
                        for c in child.children
                        if c.dep_ == "cc" and c.i > child.i and c.lower_ in _ADVERBIALS
                    ]
                    if ccs:
                        add(_ADVERBIALS[ccs[-1].lower_], child.i, token.i)
            continue
        lemma, connective = found
        earlier = [
            c.i for c in token.children if c.i < connective.i and c.dep_ in ("ccomp", "conj", "parataxis")
        ]
        if earlier:
            add(lemma, earlier[-1], token.i)
        elif token.dep_ == "conj" and head.pos_ in _PREDICATES:
            add(lemma, head.i, token.i)
        elif _opening(doc, connective) and token.dep_ == "ROOT":
            add(lemma, -1, token.i)
    return links


@dataclass(frozen=True)
class _Predicate:
    """A verb of the sentence (``token``, its clause), the verb its chain ends in, the
    relation label, and its subjects as parsed and as expanded (with an imperative's
    addressee)."""

    token: Token
    verb: Token
    label: str
    subject_tokens: list[Token]
    subjects: list[Token | Mention]


class _Sentence:
    """The triples of one sentence as they are found, and the predicates that made some."""

    def __init__(self, doc: Doc, previous: Sequence[Antecedent]) -> None:
        self.doc = doc
        self.resolver = _Resolver(doc, previous)
        self.triples: list[Triple] = []
        self.predicates: set[int] = set()

    def emit(
        self, subject: Token | Mention, relation: str, obj: Token | None, clause: int, adjective: bool = False
    ) -> bool:
        """Add the triple (subject, relation, obj) when its mentions resolve; whether it did."""
        resolver = self.resolver
        s = subject if isinstance(subject, Mention) else resolver.mention(subject)
        if s is None or not relation:
            return False
        o = None
        if obj is not None:
            if adjective:
                o = adjective_mention(obj)
            elif obj.lower_ in _REFLEXIVE:
                o = s.said_as(obj.text)  # principle A: a reflexive is its clause's subject
            else:
                o = resolver.mention(obj, exclude=s.lemma)  # principle B
            if o is None:
                return False
        self.triples.append(Triple(s, relation, o, clause))
        return True

    def predicate(self, token: Token) -> None:
        """The triples of one verb (or auxiliary acting as one) and its arguments."""
        if _extraposed(token):
            return  # "It is better to ...": the clause the "it" stands for gives the triples
        subject_tokens, passive = _subjects(token)
        before = len(self.triples)
        clause = token.i
        subjects: list[Token | Mention] = list(_expand(subject_tokens))
        if not subjects and _addressed(token):
            # "Cut the fabric.": the understood subject of an imperative is the addressee.
            subjects = [_ADDRESSEE]
        if not subjects:
            if any(c.dep_ == "expl" for c in token.children):
                self.existential(token, clause)
                if len(self.triples) > before:
                    self.predicates.add(clause)
            return
        verb, label = _chain(token)
        predicate = _Predicate(token, verb, label, subject_tokens, subjects)
        if passive:
            self.passive(predicate)
        else:
            self.active(predicate)
        if not (passive and any(c.dep_ == "agent" for c in verb.children)):
            for prep, obj in _prepositional(verb):
                for subject in subjects:
                    self.emit(subject, f"{label}_{prep}", obj, clause)
        if len(self.triples) == before and label not in _LIGHT:
            # An intransitive (or unresolved-object) predicate: a one-argument relation.
            for subject in subjects:
                self.emit(subject, label, None, clause)
        if len(self.triples) > before:
            self.predicates.add(clause)

    def existential(self, token: Token, clause: int) -> None:
        # Existential "there is a cat (in the garden)": (cat, be_in, garden), else (cat, exist).
        for thing in _expand(c for c in token.children if c.dep_ == "attr" and c.pos_ in _NOUNS):
            places = _prepositional(token) + _prepositional(thing)
            placed = False
            for prep, obj in places:
                placed = self.emit(thing, f"be_{prep}", obj, clause) or placed
            if not placed:
                self.emit(thing, "exist", None, clause)

    def passive(self, predicate: _Predicate) -> None:
        verb, label, subjects, clause = predicate.verb, predicate.label, predicate.subjects, predicate.token.i
        agents = _expand(
            g for c in verb.children if c.dep_ == "agent" for g in c.children if g.dep_ == "pobj"
        )
        patients = _expand(predicate.subject_tokens)  # a passive has its own subjects, never "you"
        for agent in agents:
            for patient in patients:
                self.emit(agent, label, patient, clause)
        if not agents:
            # "which are called base classes": the predicate noun is the object.
            for obj in _expand(c for c in verb.children if c.dep_ == "oprd"):
                for subject in subjects:
                    self.emit(subject, label, obj, clause)

    def active(self, predicate: _Predicate) -> None:
        token, verb, label = predicate.token, predicate.verb, predicate.label
        subjects, clause = predicate.subjects, token.i
        copula = verb is token and label == "be"
        objects = _expand(c for c in verb.children if c.dep_ in ("dobj", "attr"))
        if not objects and _gapped_object(token, predicate.subject_tokens):
            # "the model (that) the researchers proposed": the modified noun is the object.
            objects = [token.head]
        for obj in objects:
            # "X is a Y" is class membership.
            relation = "isa" if copula and obj.dep_ == "attr" and obj.pos_ in _NOUNS else label
            for subject in subjects:
                self.emit(subject, relation, obj, clause)
        # Adjective complements become pos="a" concepts ("the wall was weak"), which the
        # similarity compares by WordNet cluster and attribute (measured in
        # docs/extraction.md and docs/validity.md, extractor 1.4).
        for adj in _expand(c for c in verb.children if c.dep_ == "acomp" and c.pos_ == "ADJ"):
            for subject in subjects:
                self.emit(subject, label, adj, clause, adjective=True)

    def caption(self) -> None:
        """A verbless caption or headline places its head noun: "Red bus on the side of
        the street" reads as "a red bus is on the side", like existential "there is"."""
        root_token = next((t for t in self.doc if t.dep_ == "ROOT"), None)
        if self.predicates or root_token is None or root_token.pos_ not in _NOUNS:
            return
        for prep, obj in _prepositional(root_token):
            if self.emit(root_token, f"be_{prep}", obj, root_token.i):
                made = self.triples[-1]
                if made.object is not None and made.object.lemma == made.subject.lemma:
                    self.triples.pop()  # one name split by the parse ("Obama To Star")
                else:
                    self.predicates.add(root_token.i)

    def possessives(self) -> None:
        """Possessives: "the hawk's feathers" gives (hawk, have, feather)."""
        for token in self.doc:
            if token.dep_ == "poss" and token.head.pos_ in _NOUNS:
                owner, owned = self.resolver.mention(token), concept_mention(token.head)
                if owner is not None and owned is not None and owner.lemma != owned.lemma:
                    self.triples.append(Triple(owner, "have", owned))


def sentence_triples(doc: Doc, previous: Sequence[Antecedent] = ()) -> SentenceTriples:
    """The triples of one parsed sentence.

    ``previous`` holds the noun mentions of the sentence before, the only
    ones a pronoun may reach back to; pass the returned ``nouns`` on to the
    next sentence.
    """
    sentence = _Sentence(doc, previous)
    for token in doc:
        if token.pos_ in _PREDICATES and token.dep_ not in ("aux", "auxpass"):
            sentence.predicate(token)
    sentence.caption()
    sentence.possessives()
    predicates = sentence.predicates
    root = next((t.i for t in doc if t.dep_ == "ROOT"), None)
    main = root if root in predicates else (max(predicates) if predicates else None)
    return SentenceTriples(
        sentence.triples, [a for _, a in sentence.resolver.nouns], _links(doc, predicates), main
    )
