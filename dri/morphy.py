"""WordNet's detachment rules (morphy): the suffixes of regular inflections and the
endings that replace them, in NLTK's order, per part of speech.

One table below both the extractor (:mod:`extract.lexicon`, verb lemmas) and
the mapper's WordNet (:mod:`mapping.wordnet`, every lookup), so the two read
inflections the same way.
"""

from __future__ import annotations

__all__ = ["SUBSTITUTIONS"]

#: Part of speech -> (suffix, replacement) pairs, tried in order.
SUBSTITUTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
}
