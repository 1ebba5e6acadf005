"""The Dask distributed backend of `fanscan batch` (the `cluster` extra): photos scored on the workers of a Dask
cluster, rows streamed back to the batch process as they finish.

- `--workers N` starts a local cluster of N worker processes of one thread each; `--scheduler tcp://HOST:8786`
  joins a running one (started with `dask scheduler` and `dask worker --nthreads 1`).
- `ModelLoader`, a worker plugin, loads the models once per worker process, with one onnxruntime thread per model
  and one OpenCV thread, so that N processes on N cores do not fight over them.
- Photos go by path (the workers share the file system); a worker that cannot see a path answers `NOT_VISIBLE` and
  that photo is sent again as bytes, read here. `send_bytes` sends every photo as bytes from the start.
- At most `in_flight` photos are submitted at a time, so that a million photos do not make a million futures.
- A worker that dies has its photos rescheduled by Dask (up to `distributed.scheduler.allowed-failures` deaths per
  photo, then the photo is an error row). Rows are only written by the caller, one per photo.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from fanscan.batch_files import BatchFile
from fanscan.batch_rows import NOT_VISIBLE, PhotoJob, error_row, score_job_on_worker
from fanscan.scoring.errors import FanscanError

PLUGIN_NAME = "fanscan-models"
CONNECT_TIMEOUT_S = 20


try:  # this module is imported only for --scheduler / --workers; without the extra, `_distributed` says what to do
    import distributed
except ImportError:
    distributed = None


def _distributed():
    if distributed is None:
        raise FanscanError("--scheduler and --workers need Dask: pip install 'fanscan[cluster]'")
    return distributed


class ModelLoader(distributed.WorkerPlugin if distributed else object):
    """Worker plugin: the photo pipeline with one thread per model, loaded once when the worker starts."""

    name = PLUGIN_NAME

    def setup(self, worker: Any = None) -> None:
        import cv2

        from fanscan.batch_settings import model_versions
        from fanscan.vision.classify import TileClassifier
        from fanscan.vision.detect import TileDetector
        from fanscan.vision.pipeline import Pipeline, set_default_pipeline

        cv2.setNumThreads(1)
        set_default_pipeline(Pipeline(TileDetector(threads=1), TileClassifier(threads=1)))
        self.models = model_versions()


def worker_model_versions(dask_worker: Any = None) -> dict[str, str]:
    """The model versions a worker loaded (run on every worker to check them against the table's)."""
    return dask_worker.plugins[PLUGIN_NAME].models


def _client(stack: ExitStack, scheduler: str | None, workers: int | None):
    if scheduler:
        try:
            return stack.enter_context(distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S))
        except (OSError, TimeoutError, ValueError) as error:
            raise FanscanError(f"{scheduler}: cannot reach a Dask scheduler ({type(error).__name__}: "
                               f"{str(error).splitlines()[0] if str(error) else ''})") from None
    if sys.platform == "linux":
        # Fork the worker processes from this one with the photo stack already imported: a spawned worker imports
        # Dask, OpenCV and onnxruntime anew, seconds of start-up that a batch of a few hundred photos notices.
        import cv2  # noqa: F401
        import dask
        import onnxruntime  # noqa: F401

        import fanscan.vision.pipeline  # noqa: F401

        dask.config.set({"distributed.worker.multiprocessing-method": "fork"})
    cluster = stack.enter_context(distributed.LocalCluster(  # any free ports: several batches may run at once
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", scheduler_port=0,
        dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR))
    return stack.enter_context(distributed.Client(cluster))


def cluster_rows(files: Iterable[BatchFile], settings: dict[str, Any], *, scheduler: str | None = None,
                 workers: int | None = None, send_bytes: bool = False,
                 note: Callable[[str], None] = print) -> Iterator[dict[str, Any]]:
    """The rows of `files`, scored on a Dask cluster, in the order they finish."""
    _distributed()
    with ExitStack() as stack:
        client = _client(stack, scheduler, workers)
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except TimeoutError:
            raise FanscanError(f"{client.scheduler.address}: no Dask worker joined within "
                               f"{CONNECT_TIMEOUT_S} s") from None
        try:
            client.register_plugin(ModelLoader(), name=PLUGIN_NAME)
        except Exception as error:  # a worker that cannot load the models: say which error, once
            raise FanscanError(f"Dask workers cannot load the models ({type(error).__name__}: {error})") from None
        mismatched = {address: versions for address, versions in client.run(worker_model_versions).items()
                      if versions != settings["models"]}
        if mismatched:
            address, versions = next(iter(mismatched.items()))
            raise FanscanError(f"Dask worker {address} has other models ({versions}) than this batch "
                               f"({settings['models']}); install the same fanscan on every worker")
        info = client.scheduler_info()
        threads = sum(w["nthreads"] for w in info["workers"].values())
        # The scheduler's web server runs without Bokeh too, but its dashboard pages need Bokeh (where it runs).
        dashboard = "dashboard" in info.get("services", {}) and (scheduler or importlib.util.find_spec("bokeh"))
        note(f"Dask: {client.scheduler.address}, {len(info['workers'])} workers, {threads} threads"
             + (f"; dashboard {client.dashboard_link}" if dashboard else "; no dashboard (pip install bokeh)"))
        yield from _stream(client, files, settings, send_bytes, in_flight=max(32, 4 * threads),
                           note=note)


def _stream(client, files: Iterable[BatchFile], settings: dict[str, Any], send_bytes: bool,
            in_flight: int, note: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    from fanscan.vision.load import read_image_file

    run_id = uuid.uuid4().hex[:8]
    counter = itertools.count()
    waiting = iter(files)
    submitted: dict[str, PhotoJob] = {}
    completed = distributed.as_completed()
    told_about_bytes = False

    def submit(job: PhotoJob, with_bytes: bool) -> dict[str, Any] | None:
        """Hand a photo to the cluster; its error row when its bytes cannot even be read here."""
        if with_bytes and job.data is None:
            try:
                job = replace(job, data=read_image_file(Path(job.file.path), job.file.where))
            except FanscanError as error:
                return error_row(job.file, str(error))
        future = client.submit(score_job_on_worker, job, settings, key=f"fanscan-{run_id}-{next(counter)}",
                               pure=False)
        submitted[future.key] = job
        completed.add(future)
        return None

    def refill() -> Iterator[dict[str, Any]]:
        while len(submitted) < in_flight:
            file = next(waiting, None)
            if file is None:
                return
            row = submit(PhotoJob(file), send_bytes)
            if row is not None:
                yield row

    yield from refill()
    while submitted:
        future = next(completed)
        job = submitted.pop(future.key)
        if future.status == "cancelled":
            raise FanscanError("the Dask scheduler went away (rows written so far are kept; run again to resume)")
        if future.status == "error":
            error = future.exception()
            what = ("its worker died each time it was tried" if isinstance(error, distributed.KilledWorker)
                    else f"{type(error).__name__}: {error}")
            yield error_row(job.file, f"{job.file.where}: not scored on the cluster ({what})")
        elif (row := future.result()) != NOT_VISIBLE:
            yield row
        else:
            if not told_about_bytes:
                note("some workers cannot see the photos' folder: sending those photos as bytes")
                told_about_bytes = True
            row = submit(job, with_bytes=True)
            if row is not None:
                yield row
        future.release()
        yield from refill()
