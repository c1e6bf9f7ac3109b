"""Prefect flows over whole corpora: extract, map, score and store every pair of a folder.

* :mod:`flows.tasks` -- the steps of a corpus run as plain functions:
  discover, extract and store (cached by ``graph_id``), plan pairs, map and
  store (skipped when stored), write the summary;
* :mod:`flows.corpus` -- :func:`~flows.corpus.corpus_flow`, the Prefect flow
  over those steps, and :func:`~flows.corpus.run_corpus` to run it on a chosen
  task runner;
* :mod:`flows.runners` -- processes, threads or a Dask cluster, from
  arguments or the environment;
* :mod:`flows.sensor` -- the corpus sensor that announces new corpus folders
  with ``corpus.arrived`` events, remembering them durably;
* :mod:`flows.progress` -- progress reports for logs and progress bars.

Deployments are in ``prefect.yaml``; how to run them is in ``docs/prefect.md``.
The submodules are imported on demand, so ``import dri.flows`` stays cheap.
"""
