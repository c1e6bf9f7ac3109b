"""ROS graphs: the typed noun-verb-noun graph model and its serialisation."""

from graphs.ros import *  # noqa: F401,F403
from graphs.ros import __all__  # noqa: F401
