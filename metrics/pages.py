"""HTML pages and Markdown summaries from Jinja2 templates.

Every page the project writes (the evaluation reports of :mod:`metrics.report`
and the page of one comparison, ``dri compare --html``) is rendered from its
data by a template in ``metrics/templates/``; no page is built by joining
strings. HTML templates escape every value (Jinja2 autoescape); Markdown
templates pass every value through the ``md`` filter
(:func:`dri.literal.markdown_text`: HTML and Markdown markup escaped, so a
file name ``<script>.txt`` stays text in any Markdown viewer); the only
markup passed through is the mapping picture's SVG, which matplotlib wrote
(:mod:`metrics.picture`). A page is one file that works offline: the style
sheet is inline and there is no script, web font or remote resource.

:class:`MappingView` is what a page shows of one mapping: the picture, the
mapped pairs (relations first, with Lin and generic space; loose pairs
marked) and the candidate inferences.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import jinja2
import markupsafe
import networkx as nx

from dri.graphs.ros import CONCEPT, RELATION
from dri.literal import markdown_text, printable
from dri.mapping import MappedPair
from dri.mapping.inference import CandidateInference
from dri.metrics.picture import MappingPicture, draw_mapping
from dri.metrics.scores import SCORE_NAMES, Comparison

__all__ = ["SCORE_LABELS", "MappingView", "comparison_page", "mapping_view", "number", "render"]

SCORE_LABELS = {
    "analogy_similarity": "Analogy Similarity",
    "semantic": "Semantic similarity",
    "jaccard": "Jaccard",
    "conceptual": "Conceptual similarity",
    "relational": "Relational similarity",
    "weighted_jaccard": "Weighted Jaccard",
    "content": "Content similarity (sentence encoder)",
    "combined": "Combined similarity (structure and content)",
    "coverage": "Coverage of the source (sentence encoder)",
    "tfidf_cosine": "TF-IDF cosine",
    "ngram3_containment": "Word 3-gram containment",
    "lcs_words": "LCS (words) / answer length",
    "chrf": "chrF",
    "fuzz_token": "rapidfuzz token sort ratio",
    "encoder": "Sentence encoder cosine (MiniLM)",
}


def number(x: Any, digits: int = 3) -> str:
    """A value as a report shows it: floats to ``digits`` places (tiny ones in
    scientific notation), missing values and NaN as an en dash."""
    if x is None:
        return "–"
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        if x != 0 and abs(x) < 10**-digits:
            return f"{x:.1e}"
        return f"{x:.{digits}f}"
    return str(x)


def _label(score: str) -> str:
    return SCORE_LABELS.get(score, score.replace("_", " "))


def _visible(value: Any) -> Any:
    """Every printed value without control characters or lone surrogates
    (:func:`dri.literal.printable`): a page or summary always encodes and parses."""
    if not isinstance(value, str):
        return value
    text = printable(value, newlines=True)
    return markupsafe.Markup(text) if isinstance(value, markupsafe.Markup) else text


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        finalize=_visible,
        loader=jinja2.PackageLoader("dri.metrics", "templates"),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["number"] = number
    env.filters["score_label"] = _label
    env.filters["md"] = markdown_text
    env.filters["md_item"] = functools.partial(markdown_text, block_start=True)
    return env


def render(template: str, **context: Any) -> str:
    """The named template of ``metrics/templates`` rendered with ``context``."""
    return _environment().get_template(template).render(**context)


@dataclass(frozen=True)
class MappingView:
    """One mapping as a page shows it: scores, picture, pairs and inferences."""

    comparison: Comparison
    picture: MappingPicture | None = None
    inferences: Sequence[CandidateInference] = field(default_factory=tuple)

    @property
    def pairs(self) -> list[MappedPair]:
        """The mapped pairs, relations first, each kind in mapping order."""
        pairs = self.comparison.mapping.pairs
        return [p for kind in (RELATION, CONCEPT) for p in pairs if p.kind == kind]

    @property
    def scores(self) -> list[tuple[str, float]]:
        return [(name, float(getattr(self.comparison.scores, name))) for name in SCORE_NAMES]


def mapping_view(
    comparison: Comparison,
    source: nx.DiGraph | None = None,
    target: nx.DiGraph | None = None,
    *,
    prefix: str = "mapping",
) -> MappingView:
    """The view of ``comparison``, with its picture when both graphs are given."""
    inferences = tuple(comparison.inferences)
    picture = None
    if source is not None and target is not None:
        picture = draw_mapping(source, target, comparison.mapping, inferences, prefix=prefix)
    return MappingView(comparison, picture, inferences)


def comparison_page(view: MappingView) -> str:
    """The HTML page of one comparison (``dri compare --html``)."""
    return render("compare.html", view=view, mapping=view.comparison.mapping)
