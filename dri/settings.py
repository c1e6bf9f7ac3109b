"""Where the tool keeps its data, read from the environment.

``DRI_DATA_DIR``   working data: embedded store, caches, reports
                   (default: ``data/`` in the project folder).
``DRI_NLTK_DATA``  the nltk_data folder holding WordNet
                   (default: ``data/nltk_data`` in the project folder, built
                   by ``scripts/setup-wordnet``).
``DRI_CLOUGH_CORPUS``  the Clough & Stevenson plagiarism corpus used by tests
                   and benchmarks (default: ``../shared/corpora/clough-stevenson``
                   beside the project folder).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["PROJECT_ROOT", "data_dir", "cache_dir", "nltk_data_dir", "clough_stevenson_dir"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    path = Path(os.environ.get("DRI_DATA_DIR") or PROJECT_ROOT / "data")
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    path = data_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def nltk_data_dir() -> Path:
    return Path(os.environ.get("DRI_NLTK_DATA") or PROJECT_ROOT / "data" / "nltk_data")


def clough_stevenson_dir() -> Path:
    default = PROJECT_ROOT.parent / "shared" / "corpora" / "clough-stevenson"
    return Path(os.environ.get("DRI_CLOUGH_CORPUS") or default)
