"""What every worker of the corpus flow's process pool loads before its first
task, loaded once a run: the forkserver that forks the workers imports this
module first (:func:`dri.flows.runners.worker_context`), so the workers start
with Prefect's task engine, the flow's steps and spaCy imported.

spaCy's model, WordNet's tables and the encoder's session are left to the
workers: the model is loaded only by a worker that parses, WordNet's folder
is read from the environment a worker is given (which in a long-lived
process may differ from the one the forkserver started with), and an
onnxruntime session is not to be forked.
"""

from __future__ import annotations

import importlib
import signal

# Ctrl-C at a terminal reaches the whole process group, the forkserver too, which
# ignores SIGINT only once this module is loaded: an interrupt while it loaded was
# a KeyboardInterrupt traceback on the console. The parent ends the pool itself.
_before = signal.signal(signal.SIGINT, signal.SIG_IGN)
try:
    importlib.import_module("prefect.task_engine")  # a task's engine, run by each worker
    importlib.import_module("dri.flows.corpus")  # the flow's tasks, unpickled by reference
    importlib.import_module("dri.extract.spacy_import").import_spacy()
finally:
    signal.signal(signal.SIGINT, _before)
