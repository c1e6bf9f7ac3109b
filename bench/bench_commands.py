"""Benchmark: the commands a user waits for (a new search target, compare, demo), each against a baseline checkout, in one run.

Every row runs this checkout's ``dri`` (A) and the baseline's (B, default
``../base``, the last release, with its own ``.venv``) in turn -- A B A B ...
-- and gives each side's median wall and CPU seconds (user + system of the
command and its children, from ``os.wait4``) and the median of the pairwise
ratios A/B, so that a machine whose load drifts during the run still gives a
fair ratio. On a shared machine quote the CPU ratio; the wall ratio says
what a user waits for.

Rows (``--rows``):

* ``analogy-N`` (N = 10, 300, 1000 by ``--sizes``): ``dri evaluate analogy
  CORPUS --target T -q`` with every graph stored and a target whose
  comparisons are not: a corpus of N AnaloBench stories (``story_s10``,
  ``story_s30`` and the one-sentence gist of each bank entry, in bank order)
  is extracted once per side into a seed data folder, and each run starts
  from a fresh copy of it (copying is not timed). The target is the bank's
  second story, which the seeding run (target: the first) did not compare.
* ``compare-demo``: ``dri compare`` of two demo texts (Rutherford's atom and
  the solar system), in an empty data folder: both files are parsed.
* ``compare-again``: the same command, in a data folder where it has run
  once: the graphs kept then are read back (extract/kept_graphs.py).
* ``demo``: ``dri demo`` in an empty data folder.

Each row also runs each side once more under ``python -X importtime`` and
sums the top-level imports (lazy ones included: an import inside a function
called from the top is top-level): the seconds the command spends importing.

    .venv/bin/python bench/bench_commands.py [--baseline ../base] [--runs 3]
        [--rows analogy compare-demo compare-again demo] [--sizes 10 300 1000] [--no-imports]

The whole-paper pair (``compare()`` of two extracted 300-sentence documents)
is ``bench/bench_pair.py``; the figures are in ``docs/search.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
STORY_BANK = SHARED / "validity" / "analobench" / "story_bank.jsonl"
DEMO = REPO / "corpora" / "demo" / "analogy"


def story_corpus(root: Path, n: int) -> Path:
    """A folder of the first ``n`` stories of the bank (three texts per entry)."""
    folder = root / f"stories-{n}"
    if folder.is_dir() and len(list(folder.glob("*.txt"))) == n:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    count = 0
    with STORY_BANK.open(encoding="utf-8") as fh:
        for line in fh:
            entry = json.loads(line)
            for key in ("story_s10", "story_s30", "sentence"):
                if count < n and entry.get(key):
                    (folder / f"{count:04d}-{key}.txt").write_text(entry[key], encoding="utf-8")
                    count += 1
    if count < n:
        raise SystemExit(f"{STORY_BANK}: only {count} texts, not {n}")
    return folder


def adopt_orphans() -> None:
    """Make this process the reaper of its orphaned descendants (Linux), so that
    :func:`timed` counts the CPU of a process the command left to end after it:
    a pool's forkserver, with the workers it forked, outlives the command by a
    moment and is nobody's child then."""
    import ctypes

    pr_set_child_subreaper = 36
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1)


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """``(wall s, CPU s of the command and its descendants, exit status)``: the wall
    until the command exits; the CPU also of what it left behind, once that ended."""
    _reap_orphans()  # of commands run before, untimed (the seeding, the import times)
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime + _reap_orphans(), proc.returncode


def _reap_orphans() -> float:
    """Wait for every child this process has (orphans adopted, :func:`adopt_orphans`);
    their CPU seconds."""
    cpu = 0.0
    while True:
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return cpu
        cpu += usage.ru_utime + usage.ru_stime


def import_seconds(argv: list[str], env: dict[str, str]) -> float:
    """Summed top-level import time of the ``dri`` command ``argv`` under ``-X importtime``."""
    python = Path(argv[0]).with_name("python")
    out = subprocess.run(
        [str(python), "-X", "importtime", *argv], env=env, capture_output=True, text=True, check=False
    )
    total = 0
    for line in out.stderr.splitlines():
        parts = line.split("|")
        top = line.startswith("import time:") and len(parts) == 3 and not parts[2].startswith("  ")
        if top and parts[1].strip().isdigit():
            total += int(parts[1])
    return total / 1e6


def paired(
    label: str,
    sides: dict[str, tuple[list[str], dict[str, str], Path | None]],
    runs: int,
    imports_too: bool = True,
) -> dict:
    """Run A and B in turn ``runs`` times, each in a fresh copy of its seed folder
    (and once more each under ``-X importtime`` if ``imports_too``)."""
    times: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    for _ in range(runs):
        for side in ("A", "B"):
            argv, env, seed = sides[side]
            with tempfile.TemporaryDirectory(prefix="dri-bench-") as scratch:
                data = Path(scratch) / "data"
                if seed is not None:
                    shutil.copytree(seed, data)
                run = [a.replace("{scratch}", scratch) for a in argv]  # a fresh report folder each run
                wall, cpu, code = timed(run, {**env, "DRI_DATA_DIR": str(data)})
            if code not in (0, 1):
                raise SystemExit(f"{label}: {side} exited {code}: {' '.join(argv)}")
            times[side].append((wall, cpu))
    imports = {"A": float("nan"), "B": float("nan")}
    for side in ("A", "B") if imports_too else ():
        argv, env, seed = sides[side]
        with tempfile.TemporaryDirectory(prefix="dri-bench-") as scratch:
            data = Path(scratch) / "data"
            if seed is not None:
                shutil.copytree(seed, data)
            run = [a.replace("{scratch}", scratch) for a in argv]
            imports[side] = import_seconds(run, {**env, "DRI_DATA_DIR": str(data)})
    row = {"row": label, "command": " ".join(sides["A"][0][1:]), "runs": runs}
    for side in ("A", "B"):
        row[f"{side} wall"] = statistics.median(w for w, _ in times[side])
        row[f"{side} cpu"] = statistics.median(c for _, c in times[side])
    row["wall A/B"] = statistics.median(a[0] / b[0] for a, b in zip(times["A"], times["B"]))
    row["cpu A/B"] = statistics.median(a[1] / b[1] for a, b in zip(times["A"], times["B"]))
    row["A import s"], row["B import s"] = imports["A"], imports["B"]
    print(
        f"{label:<16} A {row['A wall']:6.2f} s wall {row['A cpu']:6.2f} s CPU | "
        f"B {row['B wall']:6.2f} / {row['B cpu']:6.2f} | A/B wall {row['wall A/B']:.2f} CPU {row['cpu A/B']:.2f} | "
        f"imports A {imports['A']:.2f} s B {imports['B']:.2f} s",
        flush=True,
    )
    return row


def seed(dri: Path, corpus: Path, folder: Path, first: str) -> Path:
    """Extract every graph of ``corpus`` (one search for ``first``, one candidate) into ``folder``."""
    if (folder / "done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {**os.environ, "DRI_DATA_DIR": str(folder)}
    argv = [str(dri), "evaluate", "analogy", str(corpus), "--target", first, "--candidates", "1", "-q"]
    subprocess.run(argv, env=env, check=False, stdout=subprocess.DEVNULL)
    (folder / "done").write_text("")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", type=Path, default=REPO.parent / "base")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rows", nargs="+", default=["analogy", "compare-demo", "compare-again", "demo"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 300, 1000])
    parser.add_argument("--work", type=Path, default=REPO / "data" / "bench" / "commands")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--no-imports", action="store_true", help="analogy rows: skip the -X importtime runs")
    args = parser.parse_args(argv)
    adopt_orphans()
    checkouts = {"A": REPO, "B": args.baseline.resolve()}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DRI_", "NEO4J_"))}
    print(f"A: {REPO}\nB: {checkouts['B']}\nload average at start: {os.getloadavg()}", flush=True)
    rows = []
    if "analogy" in args.rows:
        for n in args.sizes:
            corpus = story_corpus(args.work, n)
            first, second = sorted(p.name for p in corpus.glob("*.txt"))[:2]
            sides = {}
            for side, root in checkouts.items():
                dri = root / ".venv" / "bin" / "dri"
                folder = seed(dri, corpus, args.work / f"seed-{side}-{n}", first)
                cmd = [str(dri), "evaluate", "analogy", str(corpus), "--target", second, "-q"]
                sides[side] = (
                    [*cmd, "--out", "{scratch}/report"],
                    env,
                    folder,
                )
            rows.append(paired(f"analogy-{n}", sides, args.runs, not args.no_imports))
    pair = [str(DEMO / "rutherford-atom.txt"), str(DEMO / "solar-system.txt")]
    if "compare-demo" in args.rows:
        sides = {
            s: ([str(r / ".venv" / "bin" / "dri"), "compare", *pair], env, None) for s, r in checkouts.items()
        }
        rows.append(paired("compare-demo", sides, args.runs))
    if "compare-again" in args.rows:
        sides = {}
        for side, root in checkouts.items():
            argv = [str(root / ".venv" / "bin" / "dri"), "compare", *pair]
            folder = args.work / f"seed-{side}-compare"
            shutil.rmtree(folder, ignore_errors=True)
            subprocess.run(
                argv, env={**env, "DRI_DATA_DIR": str(folder)}, check=False, stdout=subprocess.DEVNULL
            )
            sides[side] = (argv, env, folder)
        rows.append(paired("compare-again", sides, args.runs))
    if "demo" in args.rows:
        sides = {
            s: (
                [
                    str(r / ".venv" / "bin" / "dri"),
                    "demo",
                    "--out",
                    "{scratch}/demo",
                ],
                env,
                None,
            )
            for s, r in checkouts.items()
        }
        rows.append(paired("demo", sides, args.runs))
    print(f"load average at end: {os.getloadavg()}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
