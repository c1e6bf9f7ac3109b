"""Sentence splitting for scientific prose.

A regular-expression splitter, run before spaCy, in the spirit of the
"Sentence Splitter specifically customised to the idiosyncrasies of scientific
discourse" of the Dr Inventor text-mining framework (Hurley et al., EGPAI
2016, section 4). Splitting first lets every sentence be parsed on its own, so
the parser never joins two sentences into one dependency tree, and it costs a
few microseconds per sentence.

A boundary is a ``.``, ``!`` or ``?`` (optionally followed by closing quotes
or brackets and by a numeric citation such as ``[12]`` or ``[3, 4]``), then
white space, then something that can start a sentence: an upper-case letter,
a digit, an opening quote or bracket. A full stop is *not* a boundary when it
ends a known abbreviation (``e.g.``, ``i.e.``, ``et al.``, ``Fig.``, ``Eq.``,
``Dr.``, ``cf.``, ``vs.`` ...), an initial (``J. Smith``) or a dotted acronym
(``U.S.``). Author-year citations such as ``(Smith et al., 2003)`` need no
rule of their own: ``al.`` is an abbreviation and the rest has no full stop.

Very long runs without a boundary (tables, lists, junk) are cut at white
space every :data:`MAX_SENTENCE_CHARS` characters so that the parser's cost
stays bounded.
"""

from __future__ import annotations

import re

__all__ = ["ABBREVIATIONS", "MAX_SENTENCE_CHARS", "NUMBER_ABBREVIATIONS", "split_sentences"]

#: Lower-cased abbreviations (without their final full stop) that never end a sentence.
ABBREVIATIONS = frozenset(
    [
        "al",
        "e.g",
        "i.e",
        "cf",
        "vs",
        "viz",
        "fig",
        "figs",
        "eq",
        "eqs",
        "eqn",
        "eqns",
        "sec",
        "secs",
        "sect",
        "ref",
        "refs",
        "tab",
        "tabs",
        "vol",
        "vols",
        "pp",
        "ch",
        "chap",
        "ed",
        "eds",
        "approx",
        "resp",
        "dept",
        "univ",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)

#: Abbreviations that are ordinary words too ("the answer is no."), so they
#: only hold a sentence together when a number follows ("No. 5", "p. 12").
NUMBER_ABBREVIATIONS = frozenset({"no", "nos", "p", "art", "para"})

MAX_SENTENCE_CHARS = 3000

# Terminator, optional closers, optional numeric citation, then the gap. A
# match starts only at the first terminator of a run and takes the whole run
# and its closers for good (possessive): tried from every full stop of a run
# of dots, the pattern was quadratic in the run (minutes for 100,000 dots).
_BOUNDARY = re.compile(
    r"""(?<![.!?])[.!?]++["'”’)\]]*+(?:\s?\[\d+(?:\s*[,–-]\s*\d+)*\])?(?P<gap>\s+)(?=["'“‘(\[]?[A-Z0-9])"""
)
_LAST_WORD = re.compile(r"(\S+)$")
# Longer than any abbreviation with its brackets; a longer last word is no abbreviation.
_LONGEST_ABBREVIATION_WINDOW = 64
_INITIAL = re.compile(r"^\(?[A-Z]$")
_DOTTED = re.compile(r"^\(?(?:[A-Za-z]\.)+[A-Za-z]$")
_SPACE = re.compile(r"\s+")


def _is_abbreviation(text: str, end: int, next_char: str) -> bool:
    """Whether the full stop at ``text[end]`` closes an abbreviation."""
    # Only the last few characters: searching from 0 made a paragraph's
    # splitting quadratic in its length (minutes for a 100 KB paragraph).
    match = _LAST_WORD.search(text, max(0, end - _LONGEST_ABBREVIATION_WINDOW), end)
    if match is None:
        return False
    word = match.group(1)
    if _INITIAL.match(word) or _DOTTED.match(word):
        return True
    word = word.lstrip("([\"'“‘").lower()
    return word in ABBREVIATIONS or (word in NUMBER_ABBREVIATIONS and next_char.isdigit())


def _cut_long(sentence: str, limit: int) -> list[str]:
    pieces = []
    while len(sentence) > limit:
        cut = sentence.rfind(" ", 0, limit)
        if cut <= 0:
            cut = limit
        pieces.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    if sentence:
        pieces.append(sentence)
    return [p for p in pieces if p]


def split_sentences(text: str, *, max_chars: int = MAX_SENTENCE_CHARS) -> list[str]:
    """The sentences of one paragraph of ``text``, white space normalised.

    >>> split_sentences("Smith et al. (2003) used it, e.g. in Fig. 2. It works [4]. Yes.")
    ['Smith et al. (2003) used it, e.g. in Fig. 2.', 'It works [4].', 'Yes.']
    """
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return []
    sentences = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if text[match.start()] == "." and _is_abbreviation(text, match.start(), text[match.end("gap")]):
            continue
        sentence = text[start : match.start("gap")].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end("gap")
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    if any(len(s) > max_chars for s in sentences):
        return [piece for s in sentences for piece in _cut_long(s, max_chars)]
    return sentences
