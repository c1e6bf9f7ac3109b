"""Section headings: recognising them and naming the section they open.

Shared by the text and PDF readers. A section name is the heading text,
lower-cased, without its numbering ("2.1 Related Work" -> "related work"),
so that later stages can select e.g. ``abstract`` and ``background`` as the
Dr Inventor evaluation did (Hurley et al., EGPAI 2016, section 5). The
references section is recognised by name so the readers can drop it: a
bibliography is a list of names and titles that yields no useful
noun-verb-noun structure and only adds noise concepts.
"""

from __future__ import annotations

import re

__all__ = [
    "KNOWN_SECTIONS",
    "REFERENCE_SECTIONS",
    "is_known_section",
    "is_reference_section",
    "looks_numbered",
    "section_name",
]

#: Section names recognised even without layout cues.
KNOWN_SECTIONS = frozenset(
    {
        "abstract",
        "introduction",
        "background",
        "related work",
        "related works",
        "previous work",
        "prior work",
        "motivation",
        "method",
        "methods",
        "methodology",
        "approach",
        "materials and methods",
        "model",
        "implementation",
        "experiments",
        "experimental results",
        "experimental setup",
        "evaluation",
        "results",
        "results and discussion",
        "discussion",
        "analysis",
        "conclusion",
        "conclusions",
        "conclusions and future work",
        "future work",
        "summary",
        "limitations",
        "acknowledgements",
        "acknowledgments",
        "acknowledgement",
        "acknowledgment",
        "appendix",
        "keywords",
        "overview",
        "references",
        "bibliography",
        "works cited",
        "literature cited",
        "reference list",
        "literature",
    }
)

#: Sections dropped by the readers.
REFERENCE_SECTIONS = frozenset(
    {"references", "bibliography", "works cited", "literature cited", "reference list"}
)

_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[IVXivx]+[.)]|[A-Z][.)])\s+")
_MARKDOWN = re.compile(r"^#{1,6}\s+")
_NUMBERED_HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+[A-Z]")


def section_name(heading: str) -> str:
    """``"2.1  Related Work:"`` -> ``"related work"``."""
    text = _MARKDOWN.sub("", heading.strip())
    text = _NUMBERING.sub("", text)
    text = text.strip().rstrip(".:;—–-").strip()
    return " ".join(text.lower().split())


def is_known_section(heading: str) -> bool:
    return section_name(heading) in KNOWN_SECTIONS


def is_reference_section(name: str | None) -> bool:
    return name is not None and name in REFERENCE_SECTIONS


def looks_numbered(line: str) -> bool:
    """``"3 Results"``, ``"2.1 Data"`` or ``"IV. Discussion"``."""
    return bool(_NUMBERED_HEADING.match(line.strip()))
