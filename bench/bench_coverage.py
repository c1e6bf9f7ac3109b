"""How much of each text becomes ROS structure: relations per sentence and empty graphs.

For the Clough & Stevenson corpus and each validity set in ``shared/validity/``
(see ``docs/extraction.md`` for the table this prints), every text is read
with :func:`extract.document_from_text` and built with
:func:`extract.build_graphs`, and per set the script reports

* ``texts`` and ``sentences`` (after the extractor's sentence splitter);
* ``triples/sent``: first-order relations with subject and object, per sentence;
* ``unary/sent``: one-argument relations ("the wall collapsed") per sentence;
* ``higher/sent``: higher-order relations (cause, purpose, ...) per sentence;
* ``rel/sent``: all relations per sentence;
* ``empty``: the share of texts whose graph has no relation at all;
* ``empty w/ clause``: the share of texts with at least one full clause (a
  verb or copula with a nominal subject in spaCy's parse) whose graph is
  empty -- the goal is 0.

Sets and sampling (deterministic, so runs compare):

* ``clough-stevenson``: all 100 answer and source texts;
* ``storyanalogy``: the distinct query and candidate stories (1-2 sentences);
* ``analobench-s1/s10/s30``: the 340 stories of the story bank at each length;
* ``stsb``: the distinct sentences of both columns of the dev set;
* ``wmt23-ref``: the distinct reference translations;
* ``wmt23-mt``: the MT outputs, a random sample of ``--mt-sample`` rows
  (seed 11) of the 3,770.

(The ``--no-adjectives`` variant, adjective concepts off, was retired with the
library's switch; its figures stay in ``docs/extraction.md``.)
``--json FILE`` saves the figures; ``--before FILE`` prints a previous run's
figures beside this one's (the before/after table of ``docs/extraction.md``).

Usage: ``.venv/bin/python bench/bench_coverage.py [--sets a,b] [--json out.json] [--before old.json]``
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from dri.extract import EXTRACTOR_VERSION, build_graphs, document_from_text, load_nlp
from dri.extract.reader import decode_text
from dri.graphs import higher_order_relations, relation_nodes, triples, unary_relations
from dri.settings import clough_stevenson_dir

#: The validity sets sit beside the corpora in the shared folder.
VALIDITY = clough_stevenson_dir().parent.parent / "validity"


@dataclass
class Coverage:
    name: str
    texts: int
    sentences: int
    triples: int
    unary: int
    higher: int
    empty: int
    with_clause: int
    empty_with_clause: int
    seconds: float

    def per_sentence(self, count: int) -> float:
        return count / self.sentences if self.sentences else 0.0


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _distinct(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in texts if t and t.strip()))


def load_sets(mt_sample: int) -> dict[str, Callable[[], list[str]]]:
    """Set name -> a function giving its texts."""

    def cs() -> list[str]:
        paths = sorted(clough_stevenson_dir().glob("*.txt"))
        return [decode_text(p.read_bytes(), str(p))[0] for p in paths]

    def story() -> list[str]:
        rows = _jsonl(VALIDITY / "storyanalogy" / "multiple_choice.jsonl")
        return _distinct([r["query"] for r in rows] + [c for r in rows for c in r["candidates"]])

    def bank(key: str) -> Callable[[], list[str]]:
        return lambda: [r[key] for r in _jsonl(VALIDITY / "analobench" / "story_bank.jsonl")]

    def stsb() -> list[str]:
        rows = _csv(VALIDITY / "stsb" / "sts_dev.csv")
        return _distinct([r["sentence_a"] for r in rows] + [r["sentence_b"] for r in rows])

    def wmt(column: str, sample: int | None) -> Callable[[], list[str]]:
        def load() -> list[str]:
            rows = _csv(VALIDITY / "wmt23-zhen-mqm" / "wmt23_zhen_mqm.csv")
            if sample is None:
                return _distinct([r[column] for r in rows])
            picked = random.Random(11).sample(rows, min(sample, len(rows)))
            return [r[column] for r in picked if r[column].strip()]

        return load

    return {
        "clough-stevenson": cs,
        "storyanalogy": story,
        "analobench-s1": bank("sentence"),
        "analobench-s10": bank("story_s10"),
        "analobench-s30": bank("story_s30"),
        "stsb": stsb,
        "wmt23-ref": wmt("reference", None),
        "wmt23-mt": wmt("hypothesis", mt_sample),
    }


def _has_clause(doc) -> bool:
    return any(t.dep_ in ("nsubj", "nsubjpass") and t.head.pos_ in ("VERB", "AUX") for t in doc)


def measure(name: str, texts: list[str], nlp) -> Coverage:
    documents = [document_from_text(t, f"{name}-{i}") for i, t in enumerate(texts)]
    started = time.perf_counter()
    graphs = list(build_graphs(documents, nlp=nlp))
    seconds = time.perf_counter() - started
    n_triples = n_unary = n_higher = empty = 0
    empty_texts = []
    for text, g in zip(texts, graphs):
        n_triples += len(triples(g))
        n_unary += len(unary_relations(g))
        n_higher += len(higher_order_relations(g))
        if not relation_nodes(g):
            empty += 1
            empty_texts.append(text)
    # Only the empty ones need a second look: does the text have a full clause at all?
    clause_flags = [_has_clause(doc) for doc in nlp.pipe(empty_texts)]
    with_clause_empty = sum(clause_flags)
    with_clause = len(texts) - (len(empty_texts) - with_clause_empty)
    return Coverage(
        name=name,
        texts=len(texts),
        sentences=sum(len(d.sentences) for d in documents),
        triples=n_triples,
        unary=n_unary,
        higher=n_higher,
        empty=empty,
        with_clause=with_clause,
        empty_with_clause=with_clause_empty,
        seconds=seconds,
    )


def _row(c: dict) -> list[str]:
    cov = Coverage(**c)
    rel = cov.triples + cov.unary + cov.higher
    return [
        f"{cov.per_sentence(cov.triples):.2f}",
        f"{cov.per_sentence(cov.unary):.2f}",
        f"{cov.per_sentence(cov.higher):.2f}",
        f"{cov.per_sentence(rel):.2f}",
        f"{cov.empty / cov.texts:.1%}" if cov.texts else "-",
        f"{cov.empty_with_clause / cov.with_clause:.1%}" if cov.with_clause else "-",
    ]


def table(after: dict, before: dict | None) -> str:
    heads = ["triples/sent", "unary/sent", "higher/sent", "rel/sent", "empty", "empty w/ clause"]
    lines = []
    if before:
        lines.append(
            f"extractor {before['version']} (before) -> {after['version']} (after); each cell: before -> after"
        )
        lines.append("")
    lines.append("| set | texts | sentences | " + " | ".join(heads) + " |")
    lines.append("|" + " --- |" * (len(heads) + 3))
    old = {c["name"]: c for c in (before or {}).get("sets", [])}
    for c in after["sets"]:
        cells = _row(c)
        if c["name"] in old:
            cells = [f"{b} -> {a}" for b, a in zip(_row(old[c["name"]]), cells)]
        lines.append(f"| {c['name']} | {c['texts']} | {c['sentences']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", help="comma-separated set names (default: all)")
    parser.add_argument("--mt-sample", type=int, default=1000, help="WMT23 MT outputs sampled")
    parser.add_argument("--json", type=Path, help="save the figures here")
    parser.add_argument("--before", type=Path, help="figures of an earlier run to compare with")
    args = parser.parse_args()

    sets = load_sets(args.mt_sample)
    names = args.sets.split(",") if args.sets else list(sets)
    unknown = [n for n in names if n not in sets]
    if unknown:
        parser.error(f"unknown set(s) {unknown}; known: {', '.join(sets)}")
    nlp = load_nlp()
    version = EXTRACTOR_VERSION
    result = {"version": version, "sets": []}
    for name in names:
        cov = measure(name, sets[name](), nlp)
        result["sets"].append(asdict(cov))
        print(f"{name}: {cov.texts} texts, {cov.sentences} sentences in {cov.seconds:.1f} s", flush=True)
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    print()
    print(table(result, before))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
