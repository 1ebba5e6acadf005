"""The Dask distributed backend of `fanscan batch` (the `cluster` extra): photos scored on the workers of a Dask
cluster, rows streamed back to the batch process as they finish.

- `--workers N` starts a local cluster of N worker processes of one thread each; `--scheduler tcp://HOST:8786`
  joins a running one (started with `dask scheduler` and `dask worker --nthreads 1`).
- `worker.ModelLoader`, a worker plugin, loads the models once per worker process, with one onnxruntime
  thread per model and one OpenCV thread, so that N processes on N cores do not fight over them.
- Photos go by path (the workers share the file system); a worker that cannot see a path answers `NOT_VISIBLE` and
  that photo is sent again as bytes, read here. `send_bytes` sends every photo as bytes from the start.
- Photos go `chunk` to a task. Unless the user gives `--chunk`, `auto_chunk` sizes it from the number of photos and
  worker threads: one photo a task costs a scheduler round trip and a result message per photo, which on a small
  machine takes CPU from the workers themselves (measured in `benchmarks/batch_throughput.py`).
- While the cluster starts (a second or more: Dask imported, workers started or reached, models loaded in each),
  the batch process scores photos itself, so that no core waits; the rest go to the cluster.
- At most `in_flight` tasks are submitted at a time, so that a million photos do not make a million futures.
- A worker that dies has its photos rescheduled by Dask (up to `distributed.scheduler.allowed-failures` deaths per
  photo, then the photo is an error row of status `RETRY`, which the next run scores again). Rows are only written by
  the caller, one per photo.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import logging
import multiprocessing
import multiprocessing.forkserver
import os
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from fanscan.batch.dask_output import LogLine, log_records_to, stderr_to
from fanscan.batch.files import BatchFile
from fanscan.batch.rows import NOT_VISIBLE, RETRY, PhotoJob, error_row, score_job, score_jobs_on_worker
from fanscan.batch.wording import counted
from fanscan.scoring.errors import FanscanError

CONNECT_TIMEOUT_S = 20
# `auto_chunk`: about this many tasks per worker thread, so that the last task to finish leaves the others idle for
# at most a few per cent of the batch; and no more photos a task than this, so that a worker that dies costs little.
TASKS_PER_THREAD = 16
MAX_AUTO_CHUNK = 16
# What the fork server of a local cluster's workers imports once, so that each worker forked from it starts warm.
WORKER_PRELOAD = ["distributed", "numpy", "cv2", "onnxruntime", "fanscan.vision.pipeline", "fanscan.vision.classify",
                  "fanscan.batch.rows", "fanscan.batch.worker"]


def require_dask() -> None:
    """Without Dask, say so before anything starts (finding the package is instant; importing it takes a while)."""
    if importlib.util.find_spec("distributed") is None:
        raise FanscanError("--scheduler and --workers need Dask: pip install 'fanscan[cluster]'")


def _distributed():
    require_dask()
    import distributed

    return distributed


def start_worker_fork_server(log: LogLine | None = None) -> None:
    """Start (in the background) the process that the local cluster's workers will be forked from, importing
    `WORKER_PRELOAD` meanwhile. A spawned worker would import Dask, OpenCV and onnxruntime itself, seconds of start-up
    that a batch of a few hundred photos notices; a plain fork of this process would inherit any OpenCV thread pool
    it runs (a library caller's), which hangs the child. Call it early: its imports overlap this process's work.

    The fork server is a `python -c` process, which puts the current folder first on `sys.path`: run from the folder
    that holds a clone (a `fanscan/` folder without `__init__.py`), its preload would import that folder as a namespace
    package `fanscan`, ahead of an editable install, and every worker forked from it would fail. It starts with
    `PYTHONSAFEPATH` (Python 3.11+: no current folder on `sys.path`); before 3.11 it preloads no fanscan module, and
    the workers import them under this process's `sys.path` (which multiprocessing gives each of them).

    With `log`, what the fork server and the workers forked from it write on their stderr goes to `log` instead, line
    by line (see `dask_output.stderr_to`); only when this call starts the fork server, which lives as long as this
    process."""
    require_dask()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    preload = [m for m in WORKER_PRELOAD if sys.version_info >= (3, 11) or not m.startswith("fanscan.")]
    multiprocessing.get_context("forkserver").set_forkserver_preload(preload)
    with _environment(PYTHONSAFEPATH="1"), stderr_to(log) if log else contextlib.nullcontext():
        multiprocessing.forkserver.ensure_running()


@contextlib.contextmanager
def _environment(**variables: str) -> Iterator[None]:
    """These environment variables set for the processes started meanwhile (this process's own as they were after)."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def auto_chunk(photos: int, threads: int) -> int:
    """Photos per Dask task when `--chunk` is not given: about `TASKS_PER_THREAD` tasks per worker thread, between 1
    and `MAX_AUTO_CHUNK` photos each."""
    return max(1, min(MAX_AUTO_CHUNK, photos // max(1, threads * TASKS_PER_THREAD)))


def task_sizes(photos: int, chunk: int, threads: int) -> Iterator[int]:
    """Photos per task in submission order: `chunk`, tapering to single photos at the end (at most a half of what is
    left per thread), so that the last tasks to finish are short and no worker waits long for the others."""
    left = photos
    while left > 0:
        size = min(chunk, max(1, left // (2 * threads)))
        yield size
        left -= size


def _client(stack: ExitStack, scheduler: str | None, workers: int | None, log: LogLine | None = None):
    """A client of the scheduler at `scheduler`, or of a new local cluster of `workers` processes; both closed by
    `stack`. Not entered as context managers: a client remembers the thread that entered it, and this runs in the
    starting thread while the batch's own thread closes it. With `log`, Dask's log records go there until `stack`
    closes (after the cluster)."""
    distributed = _distributed()
    if log:
        stack.enter_context(log_records_to(log))
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as error:
            raise FanscanError(f"{scheduler}: cannot reach a Dask scheduler ({type(error).__name__}: "
                               f"{str(error).splitlines()[0] if str(error) else ''})") from None
        stack.callback(client.close)
        return client
    if "forkserver" in multiprocessing.get_all_start_methods():
        import dask

        start_worker_fork_server()  # a no-op when the batch command started it already
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    cluster = distributed.LocalCluster(  # any free ports: several batches may run at once
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", scheduler_port=0,
        dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    stack.callback(cluster.close)
    client = distributed.Client(cluster)
    stack.callback(client.close)
    return client


def cluster_rows(files: Sequence[BatchFile], settings: dict[str, Any], *, scheduler: str | None = None,
                 workers: int | None = None, send_bytes: bool = False, chunk: int | None = None,
                 note: Callable[[str], None] = print, log: LogLine | None = None) -> Iterator[dict[str, Any]]:
    """The rows of `files`, scored on a Dask cluster, in the order they finish; `chunk` photos a task (None: sized
    by `auto_chunk`); `log`: where Dask's log records go (None: Dask's own handlers, on stderr).

    Starting a cluster (importing Dask, starting or reaching the scheduler and workers, loading the models in each)
    takes a second or more, in a background thread; meanwhile this process scores photos itself, in order, so that
    the cores are not left idle while the cluster starts. The rest go to the cluster."""
    require_dask()
    with ExitStack() as stack, ThreadPoolExecutor(1, thread_name_prefix="fanscan-dask-start") as starter:
        starting = starter.submit(_ready_client, stack, scheduler, workers, settings, log)
        scored_here = 0
        while scored_here < len(files) and not starting.done():
            yield score_job(PhotoJob(files[scored_here]), settings)
            scored_here += 1
        ready = starting.result()
        client, threads = ready.client, ready.threads
        rest = files[scored_here:]
        chunk = chunk or auto_chunk(len(rest), threads)
        note(f"Dask: {client.scheduler.address}, {counted(ready.workers, 'worker')}, {counted(threads, 'thread')}, "
             f"{counted(chunk, 'photo')} a task; {counted(scored_here, 'photo')} scored here while it started"
             + (f"; dashboard {ready.dashboard}" if ready.dashboard else "; no dashboard (pip install bokeh)"))
        if rest:
            yield from _stream(client, rest, settings, send_bytes, in_flight=max(32, 4 * threads), note=note,
                               chunk=chunk, threads=threads)


class ReadyCluster(NamedTuple):
    """A cluster whose workers have loaded the batch's models, as the scheduler described it once it was ready."""

    client: Any
    workers: int
    threads: int
    dashboard: str | None  # its link, None without one


def _ready_client(stack: ExitStack, scheduler: str | None, workers: int | None,
                  settings: dict[str, Any], log: LogLine | None = None) -> ReadyCluster:
    """A client of a cluster whose workers have loaded the same models as `settings` says."""
    from fanscan.batch.worker import PLUGIN_NAME, ModelLoader, worker_model_versions

    client = _client(stack, scheduler, workers, log)
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
    return ReadyCluster(client, len(info["workers"]), threads, client.dashboard_link if dashboard else None)


def _stream(client, files: Sequence[BatchFile], settings: dict[str, Any], send_bytes: bool, in_flight: int,
            note: Callable[[str], None], chunk: int = 1, threads: int = 1) -> Iterator[dict[str, Any]]:
    """Submit the photos in tasks of `task_sizes`, at most `in_flight` tasks at a time; yield each row as its task
    ends."""
    from fanscan.vision.load import read_image_file

    distributed = _distributed()
    run_id = uuid.uuid4().hex[:8]
    counter = itertools.count()
    waiting = iter(files)
    sizes = task_sizes(len(files), chunk, threads)
    submitted: dict[str, list[PhotoJob]] = {}
    completed = distributed.as_completed()
    told_about_bytes = False

    def submit(jobs: list[PhotoJob], with_bytes: bool) -> Iterator[dict[str, Any]]:
        """Hand photos to the cluster as one task; the error row of each whose bytes cannot even be read here."""
        if with_bytes:
            loaded = []
            for job in jobs:
                try:
                    loaded.append(replace(job, data=read_image_file(Path(job.file.path), job.file.where)))
                except FanscanError as error:
                    yield error_row(job.file, str(error))
            jobs = loaded
        if jobs:
            future = client.submit(score_jobs_on_worker, jobs, settings, key=f"fanscan-{run_id}-{next(counter)}",
                                   pure=False)
            submitted[future.key] = jobs
            completed.add(future)

    def refill() -> Iterator[dict[str, Any]]:
        while len(submitted) < in_flight:
            jobs = [PhotoJob(file) for file in itertools.islice(waiting, next(sizes, 0))]
            if not jobs:
                return
            yield from submit(jobs, send_bytes)

    yield from refill()
    while submitted:
        future = next(completed)
        jobs = submitted.pop(future.key)
        if future.status == "cancelled":
            raise FanscanError("the Dask scheduler went away (rows written so far are kept; run again to resume)")
        if future.status == "error":
            error = future.exception()
            what = ("its worker died each time it was tried" if isinstance(error, distributed.KilledWorker)
                    else f"{type(error).__name__}: {error}")
            for job in jobs:  # not the photo's fault (that is an error row from score_job): a resume tries again
                yield error_row(job.file, f"{job.file.where}: not scored on the cluster ({what}); the next run "
                                "of the batch tries it again", status=RETRY)
        else:
            unseen = [job for job, row in zip(jobs, future.result(), strict=True) if row == NOT_VISIBLE]
            yield from (row for row in future.result() if row != NOT_VISIBLE)
            if unseen:
                if not told_about_bytes:
                    note("some workers cannot see the photos' folder: sending those photos as bytes")
                    told_about_bytes = True
                yield from submit(unseen, with_bytes=True)
        future.release()
        yield from refill()
