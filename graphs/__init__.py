"""ROS graphs: the typed noun-verb-noun graph model and its serialisation."""

from dri.graphs.ros import *  # noqa: F403
from dri.graphs.ros import __all__  # noqa: F401
