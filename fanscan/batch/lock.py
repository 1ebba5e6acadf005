"""One batch at a time per table: `T.lock` beside the table, held with an exclusive `flock` for the whole run.

The kernel releases a `flock` when its process ends, however it ends, so a lock left by a killed run (its pid dead)
is simply taken over: there is no stale lock to detect or to race for. The file holds the owner's pid and host, for
the refusal message. The file is removed on release; a process that locked a file that was removed meanwhile (the
inode at the path is no longer its own) tries again, so two runs never both hold a lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from pathlib import Path

from fanscan.scoring.errors import FanscanError


class TableLock:
    """`with TableLock(path_of_lock_file):` holds the lock, or refuses with a one-line `FanscanError`."""

    def __init__(self, path: Path, table: Path) -> None:
        self.path = path
        self.table = table
        self.fd: int | None = None

    def acquire(self) -> None:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:
                raise FanscanError(f"{self.path}: cannot create the lock file ({error.strerror})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = os.read(fd, 200).decode("utf-8", errors="replace").strip() or "another process"
                os.close(fd)
                raise FanscanError(f"{self.table}: another fanscan batch is writing this table ({owner}; lock "
                                   f"{self.path}); wait for it to end or use another --out") from None
            try:
                same_file = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same_file = False
            if same_file:
                break
            os.close(fd)  # locked a file that its previous owner had just removed: take the one at the path now
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        self.fd = fd

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # while still holding it, so no one locks the file that is going away unseen
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> TableLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
