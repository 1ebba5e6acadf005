"""The files a batch scores: every file in the folder (and its sub-folders with `recursive`), whatever its name
says, each under a key (its path relative to the folder) that names its row in the table.

Nothing is left out by its name: a GIF, a HEIC or a text file gets a row too (an error row: the loader reads the
true type from the first bytes). Only hidden files (`.DS_Store`, editors' `.swp`) and the table's own files are
passed over, and counted, so that the final count adds up.

A key is the name as it is, except for what a table line cannot hold (see `printable`): a name that is not UTF-8,
or that holds a line break, gets the same escaped key every run, so that a resume finds its row.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from fanscan.scoring.errors import FanscanError

# What a table line cannot hold as it is: line breaks and the other control characters, and the lone surrogates
# by which Python names the bytes of a file name that are not UTF-8 (os.fsdecode's surrogateescape).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if "\udc80" <= character <= "\udcff":  # a byte that is not UTF-8, as the bytes of the name have it
        return f"\\x{ord(character) - 0xDC00:02x}"
    return character.encode("unicode_escape").decode("ascii")  # \n, \t, \x1b, \u2028


def printable(text: str) -> str:
    """`text` with each character that a table line (or a terminal) cannot hold as it is written as a Python
    escape: a name's byte that is not UTF-8 as `\\xff`, a newline as `\\n`. Always the same for the same text, and
    unchanged when there is nothing to escape (as for every UTF-8 name without control characters)."""
    return _UNPRINTABLE.sub(_escape, text)


@dataclass(frozen=True)
class BatchFile:
    key: str  # the row's `file`: the path relative to the folder, with `/`, `printable`
    where: str  # how messages name it: the folder as given, then the key (`printable` too)
    path: str  # absolute, as the file system has it, for workers that share the file system


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
            name_in_folder = path.relative_to(root).as_posix()
            listing.files.append(BatchFile(printable(name_in_folder), printable(str(folder / name_in_folder)),
                                           str(path)))
    listing.files.sort(key=lambda f: f.key)
    for before, after in zip(listing.files, listing.files[1:], strict=False):
        if before.key == after.key:  # `a\xff` (a backslash in the name) and a name with the byte 0xff
            raise FanscanError(f"{after.where}: two files in the folder have this name once escaped for the table; "
                               "rename one of them")
    return listing
