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

import prefect.task_engine  # noqa: F401  (a task's engine, run by each worker)

import dri.flows.corpus  # noqa: F401  (the flow's tasks, unpickled by reference)
from dri.extract.spacy_import import import_spacy

import_spacy()
