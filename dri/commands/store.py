"""``dri store``: look into the store of graphs and results.

  dri store info                  backend, location, counts, corpora and runs
  dri store corpora               the corpus names
  dri store documents CORPUS      the documents of a corpus
  dri store runs                  the run ids with their comparison counts
  dri store top DOCUMENT          the most analogous documents (-k, --run, --corpus)
  dri store mapping SOURCE TARGET --run RUN
                                  the mapped pairs of one comparison, with Lin
                                  similarity and generic space
  dri store clear --yes           delete everything in the store

DOCUMENT, SOURCE and TARGET are document ids, paths or names. The store is
Neo4j when NEO4J_URI is set, else the embedded SQLite file; --uri picks
another. Errors are one line on stderr and exit status 1; a usage error
(a bad option, ``clear`` without ``--yes``) is exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dri.literal import echo, from_printable, printable, storable, whole_number
from dri.store import open_store

__all__ = ["MAX_K", "register", "run_store"]

#: The most analogues ``dri store top`` lists; any more would not fit a terminal anyway.
MAX_K = 100_000


def _name(text: str) -> str:
    """A name, id or path to look up (argparse's ``type``), as the stores keep it
    (:func:`dri.literal.storable`); never empty, which is a usage error as for a
    file name (it was "no document ''", exit 1)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name")
    return storable(text)


def _uri(text: str) -> str:
    """``--uri``: never empty. An unset shell variable (``--uri "$STORE"``) opened
    the configured store instead, so ``clear --yes`` emptied it."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty store URI (leave --uri out for the configured store)")
    return text


def _count(text: str) -> int:
    """``-k``: a whole number from 1 to MAX_K (argparse turns the ValueError into one line)."""
    k = whole_number(text)
    if k is None:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {printable(text[:40])!r}")
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_K}, not {text}")
    return k


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "store",
        help="look into the store of graphs and results",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--uri",
        type=_uri,
        help="store to open (bolt://…, neo4j://…, sqlite:///file); default: configured one",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("info", help="backend, location, counts, corpora and runs")
    actions.add_parser("corpora", help="the corpus names")
    docs = actions.add_parser("documents", help="the documents of a corpus")
    docs.add_argument("corpus", type=_name)
    actions.add_parser("runs", help="the run ids with their comparison counts")
    top = actions.add_parser("top", help="the most analogous documents")
    top.add_argument("document", type=_name, help="document id, path or name")
    top.add_argument("-k", type=_count, default=10, help=f"how many, 1 to {MAX_K} (default 10)")
    top.add_argument("--run", type=_name, help="only this run id")
    top.add_argument("--corpus", type=_name, help="look the document up in this corpus")
    mapping = actions.add_parser("mapping", help="the mapped pairs of one comparison")
    mapping.add_argument("source", type=_name)
    mapping.add_argument("target", type=_name)
    mapping.add_argument("--run", type=_name, required=True, help="run id")
    mapping.add_argument("--corpus", type=_name, help="look the documents up in this corpus")
    clear = actions.add_parser("clear", help="delete everything in the store")
    clear.add_argument("--yes", action="store_true", help="really delete")
    p.set_defaults(handler=run_store)


def run_store(args: argparse.Namespace) -> int:
    if args.action == "clear" and not args.yes:
        echo("error: dri store clear deletes everything; add --yes to do it", file=sys.stderr)
        return 2
    # Looking must not create an empty store (and its folders) where none was.
    # A store error is one line from the command's error boundary (dri/cli.py).
    with open_store(args.uri, create=False) as store:
        return int(_ACTIONS[args.action](store, args))


def _info(store: Any, args: argparse.Namespace) -> int:
    echo(f"backend: {store.backend}", one_line=True)
    echo(f"location: {store.location}", one_line=True)
    counts = store.counts()
    echo("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()), one_line=True)
    corpora = store.corpora()
    echo(f"corpora ({len(corpora)}): " + ", ".join(corpora), one_line=True)
    runs = store.runs()
    echo(f"runs ({len(runs)}): " + ", ".join(f"{r.run_id} ({r.comparisons})" for r in runs), one_line=True)
    return 0


def _corpora(store: Any, args: argparse.Namespace) -> int:
    for name in store.corpora():
        echo(name, one_line=True)
    return 0


def _as_stored(text: str, names: list[str]) -> str:
    """``text``, or the stored name of ``names`` that it shows with
    :func:`~dri.literal.printable`'s escapes (copied from this command's output)."""
    return text if text in names or from_printable(text) not in names else from_printable(text)


def _documents(store: Any, args: argparse.Namespace) -> int:
    documents = store.documents(_as_stored(args.corpus, store.corpora()))
    if not documents:
        echo(
            f"error: {store.location}: no corpus '{args.corpus}' (or it is empty)",
            file=sys.stderr,
            one_line=True,
        )
        return 1
    for d in documents:
        meta = " ".join(f"{k}={v}" for k, v in sorted(d.meta.items()) if k not in ("name", "path"))
        echo(
            f"{d.doc_id}  {d.name}  {d.concepts} concepts, {d.relations} relations  {meta}".rstrip(),
            one_line=True,
        )
    return 0


def _runs(store: Any, args: argparse.Namespace) -> int:
    for r in store.runs():
        echo(f"{r.run_id}  {r.comparisons} comparisons  {r.first} .. {r.last}", one_line=True)
    return 0


def _find(store: Any, text: str, corpus: str | None) -> Any:
    stored_corpus = _as_stored(corpus, store.corpora()) if corpus is not None else None
    found = store.find_document(text, stored_corpus)
    if found is None and from_printable(text) != text:
        found = store.find_document(from_printable(text), stored_corpus)
    if found is None:
        # Quoted as they were typed: a repr doubled each backslash of an escape.
        if corpus is not None and stored_corpus not in store.corpora():
            # "no document 'x' in corpus 'nope'" sent the user looking for the document.
            echo(
                f"error: {store.location}: no corpus '{corpus}' (dri store corpora lists them)",
                file=sys.stderr,
                one_line=True,
            )
            return None
        where = f" in corpus '{corpus}'" if corpus is not None else ""
        echo(f"error: {store.location}: no document '{text}'{where}", file=sys.stderr, one_line=True)
    return found


def _known_run(store: Any, args: argparse.Namespace) -> bool:
    """Whether ``args.run`` is ``None`` or a run of the store, which ``args.run``
    then names as stored; a line on stderr if not.

    ``top_analogues`` of a run the store does not hold is empty, and a typing
    slip in ``--run`` would read as "0 analogues" with exit 0.
    """
    if args.run is None:
        return True
    runs = [r.run_id for r in store.runs()]
    if _as_stored(args.run, runs) in runs:
        args.run = _as_stored(args.run, runs)
        return True
    echo(
        f"error: {store.location}: no run '{args.run}' (dri store runs lists them)",
        file=sys.stderr,
        one_line=True,
    )
    return False


def _top(store: Any, args: argparse.Namespace) -> int:
    doc = _find(store, args.document, args.corpus)
    if doc is None or not _known_run(store, args):
        return 1
    analogues = store.top_analogues(doc.doc_id, k=args.k, run_id=args.run)
    echo(f"{doc.name} ({doc.doc_id}): {len(analogues)} analogues", one_line=True)
    for rank, a in enumerate(analogues, start=1):
        echo(
            f"{rank:3d}. {a.analogy_similarity:.4f}  {a.name}  (jaccard {a.jaccard:.3f}, "
            f"semantic {a.semantic:.3f}, run {a.run_id}, {a.direction})",
            one_line=True,
        )
    return 0


def _mapping(store: Any, args: argparse.Namespace) -> int:
    source = _find(store, args.source, args.corpus)
    target = source and _find(store, args.target, args.corpus)
    if source is None or target is None or not _known_run(store, args):
        return 1
    result = store.get_comparison(source.doc_id, target.doc_id, args.run)
    if result is None:
        # The other way round is a common slip: say so, rather than "no comparison" alone.
        stored = store.get_comparison(target.doc_id, source.doc_id, args.run) is not None
        other_way = f" ({target.name} -> {source.name} is: give them in that order)" if stored else ""
        echo(
            f"error: {store.location}: no comparison of {source.name} with {target.name} "
            f"in run '{args.run}'{other_way}",
            file=sys.stderr,
            one_line=True,
        )
        return 1
    scores = result.scores
    echo(
        f"{source.name} -> {target.name}, run {result.run_id}: analogy similarity "
        f"{scores['analogy_similarity']:.4f}, jaccard {scores['jaccard']:.4f}, semantic {scores['semantic']:.4f}",
        one_line=True,
    )
    for p in result.pairs:
        echo(
            f"  {p['kind']:8s} {p['source_lemma']} ~ {p['target_lemma']}  lin {p['lin']:.3f}  "
            f"generic {p['generic'] or '-'}",
            one_line=True,
        )
    return 0


def _clear(store: Any, args: argparse.Namespace) -> int:
    store.clear()
    echo(f"cleared {store.location}", one_line=True)
    return 0


_ACTIONS = {
    "info": _info,
    "corpora": _corpora,
    "documents": _documents,
    "runs": _runs,
    "top": _top,
    "mapping": _mapping,
    "clear": _clear,
}
