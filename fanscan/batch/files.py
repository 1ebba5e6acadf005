"""The files a batch scores: every file in the folder (and its sub-folders with `recursive`), whatever its name
says, each under a key (its path relative to the folder) that names its row in the table.

Nothing is left out by its name: a GIF, a HEIC or a text file gets a row too (an error row: the loader reads the
true type from the first bytes). Only hidden files (`.DS_Store`, editors' `.swp`) and the table's own files are
passed over, and counted, so that the final count adds up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from fanscan.scoring.errors import FanscanError


@dataclass(frozen=True)
class BatchFile:
    key: str  # the row's `file`: the path relative to the folder, with `/`
    where: str  # how messages name it: the folder as given, then the key
    path: str  # absolute, for workers that share the file system


@dataclass
class FolderListing:
    files: list[BatchFile] = field(default_factory=list)
    hidden: int = 0  # hidden files passed over
    folders_not_entered: int = 0  # sub-folders, without `recursive`


def list_files(folder: Path, recursive: bool = False, skip: frozenset[Path] = frozenset()) -> FolderListing:
    """The files to score, sorted by key; `skip`: absolute paths of the table's own files."""
    if not folder.is_dir():
        raise FanscanError(f"{folder}: not a folder")
    listing = FolderListing()
    root = folder.resolve()

    def refuse(error: OSError) -> None:
        raise FanscanError(f"{error.filename}: cannot list this folder ({error.strerror})")

    for current, folders, names in os.walk(root, onerror=refuse):
        visible = sorted(name for name in folders if not name.startswith("."))
        if not recursive:
            listing.folders_not_entered = len(visible)
        folders[:] = visible if recursive else []
        for name in names:
            path = Path(current) / name
            if path in skip:
                continue
            if name.startswith("."):
                listing.hidden += 1
                continue
            key = path.relative_to(root).as_posix()
            listing.files.append(BatchFile(key, str(folder / key), str(path)))
    listing.files.sort(key=lambda f: f.key)
    return listing
