"""An uploaded photo as a file for the loader: written into a fresh temporary folder under its own (cleaned) file
name, and removed with the folder when the request is done. Nothing of it outlives the request. The request then
waits its turn to read it (`work_gate`)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fanscan.scoring.errors import FanscanError
from fanscan.web.work_gate import photo_turn

_UNSAFE = re.compile(r"[^\w.\- ]+")
CHUNK = 1 << 20


def clean_name(filename: str | None) -> str:
    """The last part of an uploaded file's name, without characters that mean something to a file system."""
    name = _UNSAFE.sub("_", re.split(r"[\\/]", filename or "")[-1]).strip(" .")
    return name[:120] or "photo"


@contextmanager
def uploaded_file(upload) -> Iterator[tuple[Path, str]]:
    """(path of the upload's copy in a temporary folder, its clean name); the folder is deleted afterwards.
    `upload` is a Starlette UploadFile (its `file` is read in chunks). A `FanscanError` raised within names the
    upload instead of its temporary copy (`without_folder`)."""
    if upload is None or isinstance(upload, str):
        raise FanscanError("no photo: send the file in the multipart field `photo`")
    name = clean_name(upload.filename)
    with tempfile.TemporaryDirectory(prefix="fanscan-upload-") as folder:
        path = Path(folder) / name
        with path.open("wb") as out:
            while chunk := upload.file.read(CHUNK):
                out.write(chunk)
        with photo_turn(path, name):  # bounded work in flight (fanscan.web.work_gate)
            try:
                yield path, name
            except FanscanError as error:
                raise FanscanError(without_folder(str(error), path)) from None


def without_folder(message: str, path: Path) -> str:
    """An error message about the temporary copy, naming the upload instead."""
    return message.replace(str(path), path.name)
