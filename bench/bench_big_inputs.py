"""Big inputs: time and peak memory of reading and extracting long texts.

Builds texts of several sizes from the Clough & Stevenson corpus (its files
repeated, paragraphs kept; and one hard-wrapped paragraph, the worst case for
sentence splitting), then, each in a fresh process so that peak memory is its
own: reading and splitting (``read_document``), and optionally the whole graph
(``graph_from_path``). Prints one row per size; time and memory should grow
linearly. A last text has no sentence end at all (0.2 MB of "and the dog"),
so that every sentence is cut at the reader's limit: the parser's largest
batches. A text over the limit (``DRI_MAX_TEXT_CHARS``, 2,000,000
characters) is refused, which is measured too.

    .venv/bin/python bench/bench_big_inputs.py                 # read only: 0.5, 1, 2 MB and 19.9 MB
    .venv/bin/python bench/bench_big_inputs.py --graph 0.25 0.5 1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from dri.settings import clough_stevenson_dir

_CHILD = """
import json, resource, sys, time
from dri.extract import DocumentError
from dri.extract.build import graph_from_path
from dri.extract.reader import read_document
path, graph = sys.argv[1], sys.argv[2] == "1"
t = time.perf_counter()
try:
    if graph:
        g = graph_from_path(path)
        what = f"{g.number_of_nodes()} nodes"
    else:
        what = f"{len(read_document(path).sentences)} sentences"
except DocumentError as err:
    what = "refused: " + err.reason[:60]
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "what": what}))
"""


def make_texts(folder: Path, sizes_mb: list[float]) -> list[tuple[str, Path]]:
    texts = [p.read_bytes().decode("utf-8", "replace") for p in sorted(clough_stevenson_dir().glob("*.txt"))]
    body = "\n\n".join(texts)
    made = []
    for mb in sizes_mb:
        size = int(mb * 1_000_000)
        data = ("\n\n".join([body] * (size // len(body) + 1)))[:size]
        path = folder / f"{mb:g}mb.txt"
        path.write_text(data.rsplit(" ", 1)[0], encoding="utf-8")
        made.append((f"{mb:g} MB, paragraphs", path))
    flat = " ".join(" ".join(texts).split())
    path = folder / "one-paragraph.txt"
    path.write_text("\n".join(textwrap.wrap(flat, 72)), encoding="utf-8")
    made.append((f"{path.stat().st_size / 1e6:.2f} MB, one hard-wrapped paragraph", path))
    # No sentence end at all: every sentence is cut at MAX_SENTENCE_CHARS, the
    # parser's worst batch (its memory grows with the words of a batch).
    path = folder / "no-sentence-end.txt"
    path.write_text("and the dog " * 17_000, encoding="utf-8")
    made.append((f"{path.stat().st_size / 1e6:.2f} MB, no sentence end", path))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sizes", nargs="*", type=float, default=[0.5, 1, 2, 19.9], help="sizes in MB")
    parser.add_argument("--graph", action="store_true", help="extract the whole graph, not only read")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'input':45} {'seconds':>8} {'peak MB':>8}  result")
        for label, path in make_texts(Path(tmp), args.sizes):
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, str(path), "1" if args.graph else "0"],
                capture_output=True,
                text=True,
                check=True,
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{label:45} {row['seconds']:8.2f} {row['peak_mb']:8.0f}  {row['what']}")


if __name__ == "__main__":
    main()
