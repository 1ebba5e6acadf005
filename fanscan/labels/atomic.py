"""Writing outputs whole or not at all: everything goes into a hidden temporary folder or file beside the target,
which is renamed into place only once complete (a crash or an error leaves the old output, or none).

The temporary file or folder takes the user's umask (`fanscan.vision.new_files`), and so does the output once
renamed: not the 0600 / 0700 of `tempfile.mkstemp` and `mkdtemp`, which another user could not read.

A run that is killed leaves its hidden `.NAME.HOST-PID-XXXXXXXX.partial` (or `.old`) folder beside NAME. The next
run writing NAME removes such leftovers: at once when HOST is this machine and process PID no longer runs, and
otherwise (another machine sharing the folder, or a name without a process id) once unchanged for
`STALE_AFTER_S`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fanscan.scoring.errors import FanscanError
from fanscan.vision import new_files

PARTIAL, OLD = ".partial", ".old"
# A leftover whose owner cannot be checked (another machine, an older fanscan) is removed after a day unchanged:
# no run of `label import` or `label predict` writes for that long without touching its folder's files.
STALE_AFTER_S = 24 * 3600
_TRIES = 100


def new_temporary_folder(folder: Path, name: str, suffix: str = PARTIAL) -> Path:
    """A new temporary folder beside `folder / name`, mode 0777 less the umask (see the module doc)."""
    return new_files.new_folder(folder, name, suffix)


def _process_runs(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or a number the system cannot check: assume it runs
    return True


def is_stale(leftover: Path, name: str, now: float | None = None) -> bool:
    """Whether `leftover` is a temporary folder of NAME that no running process owns (the rule of the module doc)."""
    pattern = rf"\.{re.escape(name)}\.(?:(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-)?[0-9a-z_]+(?:{PARTIAL}|{OLD})"
    match = re.fullmatch(pattern, leftover.name)
    if match is None:
        return False
    if match["pid"] is not None and match["host"] == new_files.host_name():
        return not _process_runs(int(match["pid"]))
    try:
        changed = leftover.lstat().st_mtime
    except OSError:
        return False
    return (time.time() if now is None else now) - changed > STALE_AFTER_S


def remove_stale_leftovers(out: Path) -> list[Path]:
    """Remove the leftover temporary folders of `out` that no running process owns; returns them."""
    out = Path(out)
    removed = []
    try:
        candidates = list(out.parent.glob(f".{glob.escape(out.name)}.*"))
    except OSError:
        return removed
    for leftover in candidates:
        if leftover.is_dir() and not leftover.is_symlink() and is_stale(leftover, out.name):
            shutil.rmtree(leftover, ignore_errors=True)
            removed.append(leftover)
    return removed


@contextmanager
def new_folder(out: Path, replace: bool = False) -> Iterator[Path]:
    """A temporary folder that becomes `out` when the block ends without an error. An existing non-empty `out` is
    an error unless `replace`, and is then swapped out only after the new one is complete."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not replace:
        raise FanscanError(f"{out} already exists and is not empty: choose another --out (or --replace)")
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_leftovers(out)
    work = new_temporary_folder(out.parent, out.name)
    try:
        yield work
        old = None
        if out.exists():
            old = new_temporary_folder(out.parent, out.name, OLD)
            os.replace(out, old / "previous")
        os.replace(work, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def write_bytes(path: Path, data: bytes) -> Path:
    """`data` at `path` (its folder made if missing), written to a temporary file beside it and renamed over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = new_files.new_file(path.parent, path.name, PARTIAL)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path


def write_text(path: Path, text: str) -> Path:
    """`text` (UTF-8) at `path`, whole or not at all, as `write_bytes`."""
    return write_bytes(path, text.encode("utf-8"))


def place_photo(source: Path, target: Path) -> None:
    """The photo at `target`: a hard link when both are on one file system (no space, and unlike a symlink it
    survives the source being moved), a copy otherwise."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def report_path_for(out: Path) -> Path:
    """Where the report of a run that wrote `out` goes: beside it, `NAME.report.txt` (`tasks.json` ->
    `tasks.report.txt`, a dataset folder `mine` -> `mine.report.txt`)."""
    out = Path(out)
    stem = out.stem if out.suffix.lower() == ".json" else out.name
    return out.with_name(f"{stem}.report.txt")
