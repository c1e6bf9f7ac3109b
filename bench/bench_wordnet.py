"""Check WordNet Lin similarity against human judgements.

Spearman correlation of :func:`mapping.wordnet.lin_similarity` with
WordSim-353 (Finkelstein et al. 2002; relatedness) and SimLex-999 (Hill et
al. 2015; similarity). Both lists ship inside the gensim wheel under
``gensim/test/test_data/``; the first run fetches the wheel with
``pip download gensim==4.4.0 --no-deps`` (gensim is not installed) and caches
the two files under ``data/cache/wordsim``. gensim's copies carry no part of
speech, so a pair scores the larger of its noun and verb Lin (0 when a word
is in neither). Prints rho over all pairs and over the pairs WordNet covers,
and the time per pair with a cold and a warm cache.

    .venv/bin/python bench/bench_wordnet.py
"""

from __future__ import annotations

import glob
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy.stats import spearmanr

from dri.mapping.wordnet import wordnet
from dri.settings import cache_dir

FILES = {"WordSim-353": "wordsim353.tsv", "SimLex-999": "simlex999.txt"}
GENSIM = "gensim==4.4.0"


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


def main() -> int:
    folder = datasets()
    t0 = time.perf_counter()
    wn = wordnet()
    print(f"WordNet loaded in {time.perf_counter() - t0:.2f} s")
    for label, name in FILES.items():
        pairs = read_pairs(folder / name)
        t = time.perf_counter()
        lins, covered = [], []
        for a, b, _ in pairs:
            value = max(wn.lin(a, b, "n")[0], wn.lin(a, b, "v")[0])
            lins.append(value)
            covered.append(all(any(wn.offsets(w, p) for p in ("n", "v")) for w in (a, b)))
        cold = (time.perf_counter() - t) / len(pairs)
        t = time.perf_counter()
        for a, b, _ in pairs:
            max(wn.lin(a, b, "n")[0], wn.lin(a, b, "v")[0])
        warm = (time.perf_counter() - t) / len(pairs)
        human = [h for _, _, h in pairs]
        rho_all = spearmanr(lins, human).statistic
        sub = [(x, h) for x, h, c in zip(lins, human, covered) if c]
        rho_cov = spearmanr([x for x, _ in sub], [h for _, h in sub]).statistic
        print(
            f"{label}: {len(pairs)} pairs, {len(sub)} covered by WordNet; Spearman rho all = {rho_all:.3f}, "
            f"covered = {rho_cov:.3f}; {cold * 1e6:.0f} us/pair cold, {warm * 1e6:.1f} us/pair warm"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
