"""Structure mapping between ROS graphs, with WordNet Lin similarity.

``map_graphs(source, target)`` finds a 1-to-1, type-consistent,
parallel-connected mapping (see :mod:`mapping.mapper`);
:mod:`mapping.wordnet` gives Lin similarity and the generic space offline.
"""

from dri.mapping.mapper import Generic, MappedPair, Mapping, Similarity, map_graphs

__all__ = ["Generic", "MappedPair", "Mapping", "Similarity", "map_graphs"]
