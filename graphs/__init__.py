"""ROS graphs: the typed noun-verb-noun graph model and its serialisation."""

from dri.graphs.ros import *  # noqa: F403
from dri.graphs.ros import __all__ as _ros_all
from dri.graphs.stored import MAX_GRAPH_BYTES, NotAGraph, check_graph_json, load_json

__all__ = [*_ros_all, "MAX_GRAPH_BYTES", "NotAGraph", "check_graph_json", "load_json"]
