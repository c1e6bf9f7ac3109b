"""The parameters of a corpus run, as one typed object.

:class:`CorpusSettings` is the corpus flow's one parameter: Prefect validates
it (a pydantic model), shows it as a form in its UI and takes it from a
deployment's ``parameters: {settings: {...}}`` (``prefect.yaml``).
:func:`~flows.corpus.run_corpus` and ``dri run`` build it from their
keyword arguments and options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from dri.literal import storable
from dri.settings import DEFAULT_CANDIDATES

__all__ = ["CorpusSettings", "Mode"]

Mode = Literal["auto", "manifest", "target", "all-pairs"]


class CorpusSettings(BaseModel):
    """What to run on the corpus at ``corpus_dir``.

    ``mode``: ``manifest`` (the corpus's own pairs), ``target`` (every
    document against ``target``), ``all-pairs``, or ``auto`` (the manifest if
    the corpus has one, else ``target`` if one is given, else all pairs).
    ``run_id`` names the result set (default: a hash of everything that
    changes the results, :func:`~flows.corpus.default_run_id`); ``corpus``
    names the corpus in the store (default: the folder name).
    ``sections`` restricts both graphs of a pair to those sections (the paper
    mapped abstract plus background). ``batch_size`` fixes the documents or
    pairs per task (default: enough batches to keep every worker busy).

    Two-stage search (:mod:`flows.search`): in ``target`` and ``manifest``
    mode a target with more than ``candidates`` sources is structure-mapped
    with the ``candidates`` closest by content only, unless ``exhaustive``;
    in ``all-pairs`` mode ``top_per_document`` keeps the pairs where one
    document is among the other's K closest. With ``top`` (target mode, when
    stage 1 pruned), stage 2 maps the candidates in stage-1 order and skips
    those whose bound on AS cannot reach the ``top`` best (:mod:`flows.stage2`):
    the best ``top`` are those of mapping every candidate, and the others are
    not all there. Neither changes the run id: a pair scores the same
    whichever stage chose it.
    ``profile`` names the mapping profile (:mod:`mapping.profiles`; default:
    the default profile); it is part of the run id.
    ``allow_outside_links`` lets symbolic links to files outside the corpus
    folder in (refused by default).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus_dir: str
    mode: Mode = "auto"
    target: str | None = None
    run_id: str | None = None
    corpus: str | None = None
    sections: list[str] | None = None
    batch_size: int | None = None
    candidates: int | None = DEFAULT_CANDIDATES
    exhaustive: bool = False
    top_per_document: int | None = None
    top: int | None = None
    profile: str | None = None
    allow_outside_links: bool = False

    @property
    def root(self) -> str:
        """The corpus folder, resolved."""
        return str(Path(self.corpus_dir).resolve())

    @property
    def corpus_name(self) -> str:
        # A folder name that is not UTF-8 is kept as its escape: the stores take it.
        return storable(self.corpus or Path(self.root).name)

    def search(self) -> dict[str, Any]:
        """Stage 1 of the two-stage search: ``candidates`` and ``top_per_document``."""
        return {
            "candidates": None if self.exhaustive else self.candidates,
            "top_per_document": self.top_per_document,
        }
