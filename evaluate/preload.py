"""Load once what every evaluation uses, for processes forked afterwards to share.

``dri demo`` runs its evaluations on two processes, the second forked from
the first. Whatever the first has loaded before the fork the second has
too, without loading it again (the pages are shared until written): the
spaCy pipeline, WordNet's tables, lemminflect's and VADER's word lists, and
the plotting, special-function, string-distance and encoder runtimes that reports
and baselines import on first use. Loaded after the fork, each would cost
both processes its time (2-3 s of CPU in all, measured on ``dri demo``).

The encoder's model itself is not loaded here: onnxruntime's session does
not survive a fork, so every process makes its own
(:func:`dri.mapping.encoder.sentence_encoder`).
"""

from __future__ import annotations

__all__ = ["preload"]


def preload() -> None:
    """Load the models, tables and libraries that an evaluation loads on first use."""
    from dri.extract.build import load_nlp
    from dri.extract.lexicon import verb_lemma
    from dri.mapping.encoder import import_onnxruntime
    from dri.mapping.valence import lexicon
    from dri.mapping.wordnet import wordnet

    load_nlp()
    wordnet()
    verb_lemma("ran", "run")  # lemminflect reads its tables on its first lemma
    lexicon()
    import_onnxruntime()  # with its telemetry off, as the encoder imports it
    # Imported for their side effect: loaded now, shared after the fork.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot
    import rapidfuzz.distance  # noqa: F401
    import scipy.sparse
    import scipy.special  # noqa: F401
    import tokenizers  # noqa: F401
