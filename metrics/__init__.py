"""Scores of a mapping (Jaccard, semantic, conceptual, relational, AS).

Baselines, statistics and reports live in :mod:`metrics.baselines`,
:mod:`metrics.stats` and :mod:`metrics.report`; they are imported on their
own so that scoring a mapping stays light.
"""

from dri.metrics.scores import Comparison, Scores, compare, score_mapping

__all__ = ["Comparison", "Scores", "compare", "score_mapping"]
