"""Check the WordNet word similarity rules against human judgements.

Spearman correlation of :meth:`mapping.wordnet.WordNet.lin` under each rule
of :data:`mapping.wordnet.RULES` with SimLex-999 (Hill et al. 2015;
similarity), nouns, verbs and adjectives separately, and WordSim-353
(Finkelstein et al. 2002; relatedness). Both lists ship inside the gensim
wheel under ``gensim/test/test_data/``; the first run fetches the wheel with
``pip download gensim==4.4.0 --no-deps`` (gensim is not installed) and caches
the two files under ``data/cache/wordsim``.

gensim's SimLex-999 has no part-of-speech column but keeps the original
file's order: adjectives on lines 1-111, nouns on 112-777, verbs on 778-999
(Hill et al.'s counts; the first of each is old/new, wife/husband, go/come),
so the part of speech is read from the position. WordSim-353 has none: a
pair scores the larger of its noun and verb similarity.

Prints one table row per rule (and per ``--exponents`` value of the
``semcor`` rule's ``SENSE_EXPONENT``): rho on all pairs, the pairs WordNet
covers, and the time per pair with a cold and a warm cache; then the
word-pair cache's size. Then rows for the static word vectors of
:mod:`word_vectors` (WordLlama, ``bench/word_vectors.py``, installed by hand; cosine clipped at 0) alone, for Lin with
vectors for the pairs WordNet does not cover, and for the mean of Lin (max
rule) and vectors; ``--no-vectors`` leaves them out.

    .venv/bin/python bench/bench_wordnet.py
    .venv/bin/python bench/bench_wordnet.py --exponents 0.25,0.5,1
"""

from __future__ import annotations

import argparse
import glob
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy.stats import spearmanr

import dri.mapping.wordnet as wordnet_module
from dri.mapping.wordnet import RULES, wordnet
from dri.settings import cache_dir

FILES = {"WordSim-353": "wordsim353.tsv", "SimLex-999": "simlex999.txt"}
GENSIM = "gensim==4.4.0"
#: SimLex-999's parts of speech by line (1-based, inclusive) in the original order.
SIMLEX_POS = (("a", 1, 111), ("n", 112, 777), ("v", 778, 999))


def datasets() -> Path:
    folder = cache_dir() / "wordsim"
    if all((folder / name).is_file() for name in FILES.values()):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", GENSIM, "--no-deps", "-q", "-d", tmp], check=True
        )
        wheel = glob.glob(f"{tmp}/gensim-*.whl")[0]
        with zipfile.ZipFile(wheel) as z:
            for name in FILES.values():
                (folder / name).write_bytes(z.read(f"gensim/test/test_data/{name}"))
    return folder


def read_pairs(path: Path) -> list[tuple[str, str, float]]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b, score = line.split("\t")[:3]
        pairs.append((a.lower(), b.lower(), float(score)))
    return pairs


def subsets(folder: Path) -> dict[str, list[tuple[str, str, float, str | None]]]:
    """Named lists of (a, b, human, pos); pos None means the best of noun and verb."""
    simlex = read_pairs(folder / FILES["SimLex-999"])
    if len(simlex) != 999:
        raise SystemExit(f"SimLex-999 has {len(simlex)} pairs, expected 999")
    out = {}
    for pos, first, last in SIMLEX_POS:
        out[f"SimLex {pos.upper()}"] = [(a, b, h, pos) for a, b, h in simlex[first - 1 : last]]
    out["SimLex all"] = [p for name in ("SimLex A", "SimLex N", "SimLex V") for p in out[name]]
    out["WordSim-353"] = [(a, b, h, None) for a, b, h in read_pairs(folder / FILES["WordSim-353"])]
    return out


def score(wn, a: str, b: str, pos: str | None, rule: str) -> float:
    if pos is not None:
        return wn.lin(a, b, pos, rule)[0]
    return max(wn.lin(a, b, "n", rule)[0], wn.lin(a, b, "v", rule)[0])


def covered(wn, a: str, b: str, pos: str | None) -> bool:
    poses = (pos,) if pos else ("n", "v")
    return all(any(wn.offsets(w, p) for p in poses) for w in (a, b))


def vector_rows(wn, sets: dict[str, list[tuple[str, str, float, str | None]]]) -> None:
    """Table rows for the word vectors alone and combined with Lin (the ``max`` rule)."""
    from word_vectors import word_vectors  # needs wordllama (bench/word_vectors.py)

    t = time.perf_counter()
    vectors = word_vectors()
    print(f"| (word vectors loaded in {time.perf_counter() - t:.2f} s) |")

    def lin(a: str, b: str, pos: str | None) -> float:
        return score(wn, a, b, pos, "max")

    variants = {
        "vectors (WordLlama)": lambda a, b, pos: vectors.similarity(a, b),
        "Lin, else vectors": lambda a, b, pos: (
            lin(a, b, pos) if covered(wn, a, b, pos) else vectors.similarity(a, b)
        ),
        "mean of Lin and vectors": lambda a, b, pos: 0.5 * (lin(a, b, pos) + vectors.similarity(a, b)),
    }
    for label, fn in variants.items():
        cells = []
        t = time.perf_counter()
        values = {name: [fn(a, b, pos) for a, b, _, pos in pairs] for name, pairs in sets.items()}
        per_pair = (time.perf_counter() - t) / sum(len(p) for p in sets.values())
        for name, pairs in sets.items():
            human = [h for _, _, h, _ in pairs]
            keep = [i for i, (a, b, _, pos) in enumerate(pairs) if covered(wn, a, b, pos)]
            rho_all = spearmanr(values[name], human).statistic
            rho_cov = spearmanr([values[name][i] for i in keep], [human[i] for i in keep]).statistic
            cells.append(f"{rho_all:.3f} / {rho_cov:.3f} ({len(keep)})")
        print(f"| {label} | " + " | ".join(cells) + f" | {per_pair * 1e6:.0f} | |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--exponents", default="", help="also try these SENSE_EXPONENT values (semcor rule)")
    parser.add_argument("--no-vectors", action="store_true", help="leave out the word-vector rows")
    args = parser.parse_args(argv)
    folder = datasets()
    t0 = time.perf_counter()
    wn = wordnet()
    print(f"WordNet loaded in {time.perf_counter() - t0:.2f} s")
    sets = subsets(folder)
    variants = [(r, None) for r in args.rules.split(",") if r]
    variants += [("semcor", float(x)) for x in args.exponents.split(",") if x]
    header = ["rule"] + [f"{name} ({len(p)})" for name, p in sets.items()] + ["us/pair cold", "us/pair warm"]
    print("| " + " | ".join(header) + " |")
    print("|---" * len(header) + "|")
    default_exponent = wordnet_module.SENSE_EXPONENT
    for rule, exponent in variants:
        wordnet_module.SENSE_EXPONENT = default_exponent if exponent is None else exponent
        wn._lin_cached.cache_clear()
        label = rule + ("" if exponent is None else f", exponent {exponent}")
        if rule == "semcor" and exponent is None:
            label += f" (exponent {default_exponent})"
        cells, n_pairs = [], 0
        t = time.perf_counter()
        values = {
            name: [score(wn, a, b, pos, rule) for a, b, _, pos in pairs] for name, pairs in sets.items()
        }
        n_pairs = sum(len(p) for p in sets.values())
        cold = (time.perf_counter() - t) / n_pairs
        t = time.perf_counter()
        for pairs in sets.values():
            for a, b, _, pos in pairs:
                score(wn, a, b, pos, rule)
        warm = (time.perf_counter() - t) / n_pairs
        for name, pairs in sets.items():
            human = [h for _, _, h, _ in pairs]
            rho_all = spearmanr(values[name], human).statistic
            keep = [i for i, (a, b, _, pos) in enumerate(pairs) if covered(wn, a, b, pos)]
            rho_cov = spearmanr([values[name][i] for i in keep], [human[i] for i in keep]).statistic
            cells.append(f"{rho_all:.3f} / {rho_cov:.3f} ({len(keep)})")
        print(f"| {label} | " + " | ".join(cells) + f" | {cold * 1e6:.0f} | {warm * 1e6:.1f} |")
    wordnet_module.SENSE_EXPONENT = default_exponent
    if not args.no_vectors:
        vector_rows(wn, sets)
    print("\nCells: Spearman rho on all pairs / on the pairs WordNet covers (their number).")
    print(f"Word-pair cache: {wn.cache_info()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
