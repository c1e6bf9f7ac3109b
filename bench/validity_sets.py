"""The public validity sets in ``../shared/validity/`` as judgement pairs, ranked pools or choice items.

Used by ``bench/bench_validity.py`` and, as converters, by ``dri evaluate
judgements`` / ``dri evaluate choice`` (docs/evaluation.md); CSFCube's file is
already in the format of ``dri evaluate ranking`` and is read as it is:

    .venv/bin/python bench/validity_sets.py stsb  out/stsb.csv        # a,b,score
    .venv/bin/python bench/validity_sets.py wmt23 out/wmt23.csv       # a=reference, b=hypothesis, score=MQM
    .venv/bin/python bench/validity_sets.py storyanalogy out/sa.jsonl # query, options, answer, types
    .venv/bin/python bench/validity_sets.py analobench-s30 out/ab30.jsonl
    .venv/bin/python bench/validity_sets.py csfcube out/csfcube.csv  # a,b,score,query

Each set's ``SOURCE.md`` gives its origin, licence and metric. The files stay
in ``shared/`` (research use, not to be copied into the repository); the
converters write to wherever the user asks.

* ``storyanalogy``: 360 items, 4 candidates typed ``target`` / ``noun`` /
  ``random`` (accuracy; how often the same-entity ``noun`` distractor wins).
* ``analobench-s1``, ``-s10``, ``-s30``: AnaloBench T1, 340 items each at
  one, about 10 and about 30 sentences. The 5 items whose options contain the
  query itself (``query_in_options``) are left out, as SOURCE.md's headline
  numbers do (335 items); ``include_flagged=True`` keeps them.
* ``stsb``: STS-B dev, 1,500 sentence pairs, gold 0-5 (Pearson).
* ``wmt23``: WMT23 zh-en, 3,770 (reference, hypothesis) pairs with expert MQM
  (Kendall tau-b).
* ``csfcube``: CSFCube fold 1 (``fold1_dev``), 24 query-facets with pools of
  88-251 candidate abstracts, 2,549 pairs with expert relevance 0-3, read by
  :func:`dri.corpora.judgements.load_ranking`; a query is a ``(paper,
  facet)`` (NDCG%20 and MAP over the queries).
* ``clough-stevenson``: the 95 answers of the plagiarism corpus against their
  originals, by level (Spearman's rho with the level, ROC AUC against ``non``).
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dri.corpora.judgements import load_ranking
from dri.corpora.plagiarism import LEVELS, load_plagiarism
from dri.corpora.text import read_text
from dri.settings import PROJECT_ROOT, clough_stevenson_dir

__all__ = [
    "CHOICE_SETS",
    "JUDGEMENT_SETS",
    "RANKING_SETS",
    "SETS",
    "ChoiceItem",
    "ValiditySet",
    "load_set",
    "validity_dir",
]

CHOICE_SETS = ("storyanalogy", "analobench-s1", "analobench-s10", "analobench-s30")
JUDGEMENT_SETS = ("stsb", "wmt23")
RANKING_SETS = ("csfcube",)
SETS = (*CHOICE_SETS, *JUDGEMENT_SETS, *RANKING_SETS, "clough-stevenson")


def validity_dir() -> Path:
    return PROJECT_ROOT.parent / "shared" / "validity"


@dataclass
class ChoiceItem:
    id: str
    query: str
    options: list[str]
    answer: int
    types: list[str] | None = None


@dataclass
class ValiditySet:
    """One set: ``kind`` is ``choice``, ``judgements``, ``ranking`` or ``plagiarism``.

    For ``judgements`` and ``plagiarism``, ``pairs`` are (a, b) texts with
    ``human`` scores or ``levels``; for ``ranking``, (query, candidate) texts
    with ``human`` relevance and each pair's ``queries`` key; for ``choice``,
    ``items``.
    """

    name: str
    kind: str
    metric: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    human: list[float] = field(default_factory=list)
    levels: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    items: list[ChoiceItem] = field(default_factory=list)
    note: str = ""


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _storyanalogy(root: Path) -> ValiditySet:
    items = [
        ChoiceItem(r["id"], r["query"], list(r["candidates"]), int(r["answer"]), list(r["candidate_types"]))
        for r in _jsonl(root / "storyanalogy" / "multiple_choice.jsonl")
    ]
    return ValiditySet("storyanalogy", "choice", "accuracy", items=items)


def _analobench(root: Path, variant: str, include_flagged: bool) -> ValiditySet:
    folder = root / "analobench"
    bank = {r["bank_id"]: r for r in _jsonl(folder / "story_bank.jsonl")}
    rows = _jsonl(folder / ("t1_s30_items.jsonl" if variant == "S30" else "t1_items.jsonl"))
    items = []
    for r in rows:
        if r["variant"] != variant or (r.get("query_in_options") and not include_flagged):
            continue
        if variant == "S30":
            query = bank[r["query_bank_id"]]["story_s30"]
            options = [bank[i]["story_s30"] for i in r["option_bank_ids"]]
        else:
            query, options = r["query"], list(r["options"])
        types = ["target" if k == r["answer"] else "other" for k in range(len(options))]
        items.append(ChoiceItem(r["id"], query, options, int(r["answer"]), types))
    note = "" if include_flagged else "without the 5 query_in_options items"
    return ValiditySet(f"analobench-{variant.lower()}", "choice", "accuracy", items=items, note=note)


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _stsb(root: Path) -> ValiditySet:
    rows = _csv_rows(root / "stsb" / "sts_dev.csv")
    return ValiditySet(
        "stsb",
        "judgements",
        "pearson",
        pairs=[(r["sentence_a"], r["sentence_b"]) for r in rows],
        human=[float(r["score"]) for r in rows],
    )


def _wmt23(root: Path) -> ValiditySet:
    rows = _csv_rows(root / "wmt23-zhen-mqm" / "wmt23_zhen_mqm.csv")
    return ValiditySet(
        "wmt23",
        "judgements",
        "kendall",
        pairs=[(r["reference"], r["hypothesis"]) for r in rows],
        human=[float(r["mqm"]) for r in rows],
    )


def _csfcube(root: Path) -> ValiditySet:
    data = load_ranking(root / "csfcube" / "csfcube_fold1.csv")
    return ValiditySet(
        "csfcube",
        "ranking",
        "ndcg%20/map",
        pairs=[(str(p.a), str(p.b)) for p in data.pairs],
        human=[p.score for p in data.pairs],
        queries=[p.query for p in data.pairs],
        note="fold 1",
    )


def _clough(corpus: Path) -> ValiditySet:
    pairs = load_plagiarism(corpus).manifest()
    return ValiditySet(
        "clough-stevenson",
        "plagiarism",
        "spearman/auc",
        pairs=[(read_text(p.source), read_text(p.target)) for p in pairs],
        levels=[p.group for p in pairs],
    )


def load_set(name: str, *, include_flagged: bool = False) -> ValiditySet:
    """Load one of :data:`SETS` from ``../shared/validity`` (or the C&S corpus)."""
    root = validity_dir()
    if name == "storyanalogy":
        return _storyanalogy(root)
    if name.startswith("analobench-"):
        return _analobench(root, name.split("-", 1)[1].upper(), include_flagged)
    if name == "stsb":
        return _stsb(root)
    if name == "wmt23":
        return _wmt23(root)
    if name == "csfcube":
        return _csfcube(root)
    if name == "clough-stevenson":
        return _clough(clough_stevenson_dir())
    raise ValueError(f"unknown set {name!r}; known: {', '.join(SETS)}")


def write_converted(data: ValiditySet, out: Path) -> int:
    """Write a set as ``a,b,score`` CSV (judgements; ``a,b,score,query`` for ranking) or choice
    JSONL; returns the rows written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if data.kind == "choice":
        with out.open("w", encoding="utf-8") as fh:
            for item in data.items:
                record = {"id": item.id, "query": item.query, "options": item.options, "answer": item.answer}
                if item.types:
                    record["types"] = item.types
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        return len(data.items)
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        if data.kind == "ranking":
            writer.writerow(["a", "b", "score", "query"])
            for (a, b), score, query in zip(data.pairs, data.human, data.queries):
                writer.writerow([a, b, score, query])
            return len(data.pairs)
        writer.writerow(["a", "b", "score"])
        if data.kind == "plagiarism":
            human = [LEVELS[g] for g in data.levels]
        else:
            human = data.human
        for (a, b), score in zip(data.pairs, human):
            writer.writerow([a, b, score])
    return len(data.pairs)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", choices=SETS)
    parser.add_argument("out", type=Path, help="output .csv (judgements) or .jsonl (choice)")
    parser.add_argument(
        "--include-flagged", action="store_true", help="AnaloBench: keep query_in_options items"
    )
    args = parser.parse_args(argv)
    data = load_set(args.set, include_flagged=args.include_flagged)
    n = write_converted(data, args.out)
    print(f"{args.set}: {n} {'items' if data.kind == 'choice' else 'pairs'} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
