"""Pages from templates: the comparison page and the analogy-search report, escaped and offline."""

from __future__ import annotations

import re
from pathlib import Path

from dri.graphs import add_triple, new_graph
from dri.mapping.inference import CandidateInference, InferenceArgument
from dri.metrics import compare
from dri.metrics.pages import comparison_page, mapping_view
from dri.metrics.report import write_report
from dri.metrics.results import EvaluationResult, Hit, SearchResult


def _graphs():
    source, target = new_graph("s", name="solar <b>system</b>"), new_graph("t", name="atom")
    add_triple(source, "sun", "attract", "planet")
    add_triple(source, "planet", "revolve", "sun")
    add_triple(target, "nucleus", "attract", "electron")
    add_triple(target, "electron", "revolve", "nucleus")
    return source, target


def _offline(page: str) -> None:
    """No script, style sheet, font or image from elsewhere."""
    assert (
        "<script" not in page and "<link" not in page and "@import" not in page and "@font-face" not in page
    )
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert not re.search(r"url\(\s*[\"']?(https?:|//)", page)


def test_comparison_page_has_the_picture_the_table_and_escapes_names():
    source, target = _graphs()
    comparison = compare(source, target)
    page = comparison_page(mapping_view(comparison, source, target, prefix="c"))
    pairs = comparison.mapping.pairs
    assert len(re.findall(r'<g id="c-pair-\d+"', page)) == len(pairs) == 4
    table = page.split('<table class="mapping">')[1].split("</table>")[0]
    assert table.count("<tr") == len(pairs) + 1
    assert '<td class="text">sun</td><td class="text">nucleus</td>' in table
    assert "solar &lt;b&gt;system&lt;/b&gt;" in page and "<b>system</b>" not in page
    assert "Analogy Similarity" in page and "Candidate inferences" in page
    _offline(page)


def test_analogy_report_opens_each_hit_to_its_mapping(tmp_path):
    source, target = _graphs()
    comparison = compare(source, target)
    scores = dict.fromkeys(("analogy_similarity", "semantic", "jaccard", "conceptual", "relational"), 0.5)
    stored = [(p.kind, p.source_lemma, p.target_lemma, p.generic) for p in comparison.mapping.pairs]
    grazes = CandidateInference(
        "r:3",
        "graze_on",
        1,
        (
            InferenceArgument("subj", "c:cow", "cow", "c:electron", "electron", phrase="electron"),
            InferenceArgument("obj", "c:grass", "grass", None, None, phrase="[new: grass]"),
        ),
        support=1.5,
    )
    hits = [
        Hit(1, Path("solar.txt"), scores, stored, comparison=comparison, graphs=(source, target)),
        Hit(
            2,
            Path("farm.txt"),
            scores,
            [("concept", "cow", "electron", "organism.n.01")],
            inferences=[grazes],
        ),
    ]
    rows = [
        {"source": f"{name}.txt", "target": "atom.txt", "group": "atom.txt", **scores}
        for name in ("solar", "farm")
    ]
    files = write_report(
        EvaluationResult("analogy", rows, across_groups=False),
        tmp_path,
        search=[SearchResult(Path("atom.txt"), hits, 2, None)],
    )
    page = files.index_html.read_text(encoding="utf-8")
    assert page.count('<tr class="hit">') == 2 and page.count("<details") == 2
    assert page.count("<details open>") == 1  # the best hit is open
    assert len(re.findall(r'<g id="t1-h1-pair-\d+"', page)) == 4
    assert "t1-h2-pair" not in page  # a hit without its comparison shows the stored pairs only
    assert "cow" in page and "organism.n.01" in page
    assert "electron graze_on [new: grass]" in page and "cow graze_on grass" in page
    assert "Kruskal" not in page and "<pre>" not in page and "## " not in page and "|---|" not in page
    _offline(page)
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "## Target atom.txt" in summary and "| 1 | solar.txt | 0.500 |" in summary
    assert "- farm.txt: cow ↔ electron (organism.n.01)" in summary and "Kruskal" not in summary
    assert "- farm.txt suggests: electron graze_on \\[new: grass\\] (1.50)" in summary  # Markdown-escaped
