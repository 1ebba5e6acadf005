"""New temporary files and folders that take the user's umask, for writers that rename them into place.

They are created with mode 0666 / 0777, from which the kernel takes the umask as for any file opened for
writing, so the renamed output has the permissions the user asked for (umask 022: readable by all; 002: writable
by the group too). `tempfile.mkstemp` and `mkdtemp` make them 0600 / 0700, which survives the rename and keeps
another user (a Label Studio server, say) from reading the labels, photos and profiles fanscan writes. Reading the
umask to chmod afterwards would need `os.umask` set and reset: a race between the threads of `fanscan serve`.

Names are `.NAME.HOST-PID-RANDOM.SUFFIX`, hidden beside NAME and saying which process on which machine owns them
(`fanscan.labels.atomic` removes those of processes that no longer run).
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from pathlib import Path

_TRIES = 100


def host_name() -> str:
    """This machine's name, as it appears in temporary names (letters, digits and `_` only)."""
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())[:40] or "host"


def _temporary_name(name: str, suffix: str) -> str:
    return f".{name}.{host_name()}-{os.getpid()}-{secrets.token_hex(4)}{suffix}"


def new_file(folder: Path, name: str, suffix: str) -> tuple[int, Path]:
    """(descriptor open for writing, path) of a new temporary file beside `folder / name`, mode 0666 less the
    umask."""
    for _ in range(_TRIES):
        path = Path(folder) / _temporary_name(name, suffix)
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no free temporary name for {name}")


def new_folder(folder: Path, name: str, suffix: str) -> Path:
    """A new temporary folder beside `folder / name`, mode 0777 less the umask."""
    for _ in range(_TRIES):
        path = Path(folder) / _temporary_name(name, suffix)
        try:
            os.mkdir(path, 0o777)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no free temporary name for {name}")
