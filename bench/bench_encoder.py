"""Benchmark: the sentence encoder's load time, time per document and memory.

Prints, for :mod:`mapping.encoder` (all-MiniLM-L6-v2 int8 on onnxruntime):

* the **import** of ``dri.mapping.encoder`` (CPU seconds; it loads nothing);
* the **load** on first use, :func:`sentence_encoder` (CPU and wall seconds,
  and the resident memory it adds, in MB): the sha256 checks of both files,
  the tokenizer and the onnxruntime session;
* the **time per document** of :meth:`SentenceEncoder.encode_document` over the
  Clough & Stevenson corpus (``--corpus``; 95 short answers of 200-300
  words), as CPU milliseconds per document (median, 95th percentile, max) and
  per 1,000 word pieces, with the number of windows;
* the time per document of the content similarity's **sentence vectors**
  (:func:`mapping.content.sentence_vectors`: each sentence encoded on its
  own), beside that of the document vector;
* the time per **short text** of :meth:`SentenceEncoder.encode` in batches
  (the STS-B sentences' length), CPU milliseconds per text.

CPU time, not wall time, so that other work on the machine does not count.
Usage::

    .venv/bin/python bench/bench_encoder.py [--corpus ../shared/corpora/clough-stevenson]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = Path(__file__).resolve().parent.parent
    parser.add_argument("--corpus", type=Path, default=here.parent / "shared/corpora/clough-stevenson")
    args = parser.parse_args()

    start = time.process_time()
    from dri.mapping.encoder import sentence_encoder

    print(
        f"import: {time.process_time() - start:.3f} s CPU, onnxruntime loaded: {'onnxruntime' in sys.modules}"
    )
    rss = _rss_mb()
    start, wall = time.process_time(), time.perf_counter()
    encoder = sentence_encoder()
    print(
        f"load: {time.process_time() - start:.2f} s CPU, {time.perf_counter() - wall:.2f} s wall, "
        f"+{_rss_mb() - rss:.0f} MB resident"
    )

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(args.corpus.glob("*.txt"))]
    if not texts:
        sys.exit(f"{args.corpus}: no .txt documents")
    encoder.encode_document(texts[0])  # first run allocates onnxruntime's buffers
    times, pieces, windows = [], 0, 0
    for text in texts:
        start = time.process_time()
        windows += len(encoder.encode_windows(text))
        times.append(time.process_time() - start)
        pieces += len(encoder._pieces.encode(text, add_special_tokens=False).ids)
    times.sort()
    ms = [t * 1000 for t in times]
    print(
        f"encode_document on {len(texts)} documents ({pieces / len(texts):.0f} word pieces, "
        f"{windows / len(texts):.2f} windows each): median {statistics.median(ms):.0f} ms CPU, "
        f"p95 {ms[int(0.95 * (len(ms) - 1))]:.0f}, max {ms[-1]:.0f}; "
        f"{1000 * sum(times) / pieces * 1000:.0f} ms per 1,000 word pieces"
    )

    from dri.extract.sentences import split_sentences

    times = []
    for text in texts:
        start = time.process_time()
        encoder.encode([s for s in split_sentences(text) if s.strip()] or [text])
        times.append(time.process_time() - start)
    ms = sorted(t * 1000 for t in times)
    print(
        f"sentence vectors of the same documents: median {statistics.median(ms):.0f} ms CPU, "
        f"p95 {ms[int(0.95 * (len(ms) - 1))]:.0f}, max {ms[-1]:.0f}"
    )

    sentences = [s.strip() + "." for text in texts for s in text.split(".") if len(s.split()) > 4][:512]
    start = time.process_time()
    encoder.encode(sentences)
    print(
        f"encode on {len(sentences)} sentences in batches: "
        f"{1000 * (time.process_time() - start) / len(sentences):.1f} ms CPU each; resident {_rss_mb():.0f} MB"
    )


if __name__ == "__main__":
    main()
