"""The batch in this process, on every core: photos read side by side by threads that share one pipeline.

onnxruntime and OpenCV release the GIL, so while one thread runs a network or decodes a JPEG another can run its
photo's Python part (grouping, scoring). Each model call then runs on the thread that makes it (one onnxruntime
thread per model, one OpenCV thread), so `threads` threads keep `threads` cores busy without the oversubscription of
several threads per call fighting over the same cores. Rows come back in the order of the files, and at most a few
photos a thread are in flight, so memory stays bounded whatever the folder's size.
"""

from __future__ import annotations

import ctypes
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from fanscan.batch.files import BatchFile
from fanscan.batch.rows import PhotoJob, score_job

# More threads than this gain little in one process (the Python parts take turns); a larger machine is a Dask job.
MAX_THREADS = 4
IN_FLIGHT_PER_THREAD = 2
M_ARENA_MAX = -8  # glibc's mallopt parameter: how many heaps (arenas) malloc may keep for the process's threads


def one_malloc_arena() -> bool:
    """Let every thread of this process allocate from one heap, where the C library is glibc (whether it was set).
    glibc gives threads that allocate at once heaps of their own, each holding freed memory for reuse; the batch's
    threads allocate small blocks (the large ones are mapped and returned whatever the heap), so one heap saves its
    copies at no time we could measure (`fanscan batch` of the samples x 3: 147 -> 139 MB; x 13: within the
    machine's noise). For a process that is the batch's own (the `batch` command): call it before its threads
    start."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (macOS, Windows): nothing to set
        return False
    return bool(mallopt(M_ARENA_MAX, 1))


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def local_threads() -> int:
    return max(1, min(MAX_THREADS, cores()))


@contextmanager
def one_thread_per_call() -> Iterator[None]:
    """Within: the default pipelines run each model on one onnxruntime thread and OpenCV on one thread; the settings
    before are put back after (the pipelines of both settings stay loaded)."""
    import cv2

    from fanscan.vision.pipeline import default_threads, set_default_threads

    threads_before, opencv_before = default_threads(), cv2.getNumThreads()
    set_default_threads(1)
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        set_default_threads(threads_before)
        cv2.setNumThreads(opencv_before)


def local_rows(files: Iterable[BatchFile], settings: dict[str, Any], threads: int | None = None
               ) -> Iterator[dict[str, Any]]:
    """The row of each file, in order, scored by `threads` threads (default: one a core, up to `MAX_THREADS`)."""
    threads = threads or local_threads()
    if threads == 1:
        for file in files:
            yield score_job(PhotoJob(file), settings)
        return
    from fanscan.vision.pipeline import default_pipeline

    with one_thread_per_call(), ThreadPoolExecutor(threads, thread_name_prefix="fanscan-batch") as pool:
        default_pipeline(settings.get("profile"))  # loaded once here, not raced for by the first photos
        pending: deque[Future] = deque()
        for file in files:
            pending.append(pool.submit(score_job, PhotoJob(file), settings))
            if len(pending) >= threads * IN_FLIGHT_PER_THREAD:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
