"""What Dask would print on stderr, handed to a function instead, line by line, so that with `--json-progress` every
line on stderr is one JSON object (a program follows the batch by parsing them all):

- `log_records_to`: the log records of the scheduler, nanny and client in this process, WARNING and above (and
  Python warnings);
- `stderr_to`: whatever the processes started meanwhile write on their stderr (the fork server of a local cluster's
  workers, hence every worker: Dask's own log lines there, a traceback, a native library's warning).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator

# source (a logger name, or `worker` for a worker process's stderr), level (None for a stderr line), text
LogLine = Callable[[str, str | None, str], None]


class _LineHandler(logging.Handler):
    def __init__(self, log: LogLine) -> None:
        # WARNING and above: what goes wrong, not Dask's account of its start and close (which the batch silences on
        # stderr too: there, only its errors show)
        super().__init__(logging.WARNING)
        self.log = log
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.log(record.name, record.levelname.lower(), self.format(record))
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def log_records_to(log: LogLine) -> Iterator[None]:
    """While it lasts, every logger's handler that writes to a stream (those Dask sets up when imported: import it
    first) is replaced by one that calls `log`, the root logger gets one too (for loggers without a handler, which
    would print WARNING and above on stderr), and Python warnings are logged."""
    handler = _LineHandler(log)
    loggers = [logging.getLogger(), *(logger for logger in logging.Logger.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    replaced: list[tuple[logging.Logger, list[logging.Handler]]] = []
    for logger in loggers:
        streams = [h for h in logger.handlers
                   if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]
        if streams or logger is loggers[0]:
            replaced.append((logger, streams))
            for stream in streams:
                logger.removeHandler(stream)
            logger.addHandler(handler)
    logging.captureWarnings(True)
    try:
        yield
    finally:
        logging.captureWarnings(False)
        for logger, streams in replaced:
            logger.removeHandler(handler)
            for stream in streams:
                logger.addHandler(stream)


@contextlib.contextmanager
def stderr_to(log: LogLine) -> Iterator[None]:
    """The processes started while it lasts write their stderr to a pipe, which a thread of this process reads for
    as long as any of them (or of their children) keeps it open, calling `log("worker", None, line)` per line.
    Meanwhile this process's own stderr goes there too: keep it short (the start of a process)."""
    read_end, write_end = os.pipe()
    saved = os.dup(2)
    sys.stderr.flush()
    os.dup2(write_end, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write_end)  # the started processes hold it now: end of file when the last of them ends
        threading.Thread(target=_forward, args=(read_end, log), name="fanscan-worker-stderr", daemon=True).start()


def _forward(read_end: int, log: LogLine) -> None:
    with open(read_end, encoding="utf-8", errors="backslashreplace") as lines:
        for line in lines:
            if line.strip():
                log("worker", None, line.rstrip("\n"))
