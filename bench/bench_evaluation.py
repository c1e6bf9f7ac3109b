"""Benchmark: the paper's plagiarism and translation evaluations on the full corpus.

1. Plagiarism: the 95 answers of Clough & Stevenson's corpus, each against its
   task's original (structure scores and every baseline).
2. Translation: the corpus's 5 originals translated with Apertium to each of
   spa, cat, glg, epo and hbs and back (25 round trips), each round trip
   against its original.

Prints the per-level and per-language medians, Spearman's rho, ROC AUC,
Kruskal-Wallis p and the language ranking for every score, and the wall
times; writes the two report folders and ``bench.json`` under ``--out``.

    .venv/bin/python bench/bench_evaluation.py [--corpus DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dri.settings import prefect_defaults  # noqa: E402

prefect_defaults(quiet_console=True)

from dri.corpora.plagiarism import load_plagiarism  # noqa: E402
from dri.corpora.translate import LANGUAGES, build_translation_corpus  # noqa: E402
from dri.evaluate import evaluate_plagiarism, evaluate_translation  # noqa: E402


def _table(result) -> list[str]:
    stats = result.stats()
    groups = result.ordered_groups()
    lines = [f"{'score':22}" + "".join(f"{g:>8}" for g in groups) + "     rho     AUC   KW p  ranking"]
    for score in result.scores:
        st = stats.get(score)
        if st is None:
            continue
        med = "".join(f"{st.groups[g].median:8.3f}" if g in st.groups else f"{'-':>8}" for g in groups)
        rho = f"{st.rho:8.3f}" if st.rho is not None else f"{'-':>8}"
        auc = f"{st.auc:8.3f}" if st.auc is not None else f"{'-':>8}"
        kw = f"{st.kruskal_p:7.1e}" if st.kruskal_p is not None else f"{'-':>7}"
        lines.append(f"{score:22}{med}{rho}{auc} {kw}  {' > '.join(st.ranking)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, default=REPO.parent / "shared" / "corpora" / "clough-stevenson"
    )
    parser.add_argument("--out", type=Path, default=REPO / "data" / "bench" / "evaluation")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--skip-plagiarism", action="store_true")
    parser.add_argument("--skip-translation", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    figures: dict = {}

    if not args.skip_plagiarism:
        t = time.perf_counter()
        result, files = evaluate_plagiarism(args.corpus, args.out / "plagiarism")
        wall = time.perf_counter() - t
        failed = sum(1 for r in result.rows if r.get("error"))
        print(f"== plagiarism: {len(result.rows)} pairs ({failed} failed), wall {wall:.1f} s")
        print("\n".join(_table(result)))
        print(f"report: {files.summary_md}\n")
        figures["plagiarism"] = {
            "pairs": len(result.rows),
            "failed": failed,
            "wall_seconds": round(wall, 1),
            "report": str(files.folder),
        }

    if not args.skip_translation:
        languages = [lang for lang in args.languages.split(",") if lang]
        originals = sorted(load_plagiarism(args.corpus).originals.values())
        t = time.perf_counter()
        built = build_translation_corpus(originals, args.out / "translation-corpus", languages)
        build_wall = time.perf_counter() - t
        for problem in built.problems:
            print(f"error: {problem}", file=sys.stderr)
        t = time.perf_counter()
        result, files = evaluate_translation(args.out / "translation-corpus", args.out / "translation")
        wall = time.perf_counter() - t
        failed = sum(1 for r in result.rows if r.get("error"))
        print(
            f"== translation: {len(originals)} originals x {len(languages)} languages = {len(result.rows)} pairs "
            f"({failed} failed); Apertium round trips {build_wall:.1f} s, evaluation {wall:.1f} s"
        )
        print("\n".join(_table(result)))
        print(f"report: {files.summary_md}")
        figures["translation"] = {
            "pairs": len(result.rows),
            "failed": failed,
            "build_seconds": round(build_wall, 1),
            "wall_seconds": round(wall, 1),
            "report": str(files.folder),
        }

    (args.out / "bench.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
