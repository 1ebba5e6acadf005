"""The worker side of `fanscan batch` on Dask: a worker plugin that loads the photo pipeline once per worker
process, with one onnxruntime thread per model and one OpenCV thread, so that one process per core never
oversubscribes the cores."""

from __future__ import annotations

from typing import Any

import distributed

PLUGIN_NAME = "fanscan-models"


class ModelLoader(distributed.WorkerPlugin):
    """Worker plugin: the photo pipeline with one thread per model, loaded once when the worker starts."""

    name = PLUGIN_NAME

    def setup(self, worker: Any = None) -> None:
        self.models = load_models_once()


_LOADED: dict[str, str] | None = None  # the model versions this worker process has loaded


def load_models_once() -> dict[str, str]:
    """Load the pipeline with one thread per model in this worker process, unless a batch before did (each batch
    registers the plugin again; a long-lived worker keeps its models while the files stay the same)."""
    global _LOADED
    import cv2

    from fanscan.batch.settings import model_versions
    from fanscan.vision.pipeline import default_pipeline, set_default_threads

    versions = model_versions()
    if versions != _LOADED:
        cv2.setNumThreads(1)
        set_default_threads(1)
        default_pipeline()  # loaded now, once, not with the first photo
        _LOADED = versions
    return versions


def worker_model_versions(dask_worker: Any = None) -> dict[str, str]:
    """The model versions a worker loaded (run on every worker to check them against the table's)."""
    return dask_worker.plugins[PLUGIN_NAME].models
