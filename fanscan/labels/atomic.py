"""Writing outputs whole or not at all: everything goes into a hidden temporary folder or file beside the target,
which is renamed into place only once complete (a crash or an error leaves the old output, or none)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fanscan.scoring.errors import FanscanError


@contextmanager
def new_folder(out: Path, replace: bool = False) -> Iterator[Path]:
    """A temporary folder that becomes `out` when the block ends without an error. An existing non-empty `out` is
    an error unless `replace`, and is then swapped out only after the new one is complete."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not replace:
        raise FanscanError(f"{out} already exists and is not empty: choose another --out (or --replace)")
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        yield work
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
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
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
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
