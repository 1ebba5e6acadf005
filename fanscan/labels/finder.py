"""Finding the photo an export names: a local path, a Label Studio server path, or a bare file name.

Label Studio names an uploaded photo `/data/upload/PROJECT/8HEXDIGS-name.jpg` (the prefix it adds is stripped) and a
photo from local storage `/data/local-files/?d=RELATIVE/PATH` (relative to its LOCAL_FILES_DOCUMENT_ROOT). With
`--images DIR` a photo is looked up in DIR by relative path, then by file name anywhere below DIR.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from fanscan.vision.yolo_data import IMAGE_SUFFIXES

_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-")
DOCUMENT_ROOT_ENV = "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT"


def _reference_paths(reference: str) -> list[str]:
    """The relative or absolute paths a reference may stand for, most specific first."""
    parsed = urlparse(reference)
    if parsed.path.endswith("/data/local-files/") or parsed.path.endswith("/data/local-files"):
        d = parse_qs(parsed.query).get("d", [""])[0]
        return [d] if d else []
    if parsed.scheme in ("http", "https", "s3", "gs", "azure-blob") or reference.startswith("/data/upload/"):
        name = unquote(Path(parsed.path).name)
        return [name] if not _UPLOAD_PREFIX.match(name) else [_UPLOAD_PREFIX.sub("", name), name]
    return [unquote(reference[7:]) if reference.startswith("file://") else reference]


class PhotoFinder:
    """Resolves references to photo files. `images`: the `--images` folder; `bases`: folders a relative path
    may be relative to (the export's own folder, a recorded image root)."""

    def __init__(self, images: Path | None, bases: list[Path]) -> None:
        self.images = Path(images) if images is not None else None
        self.bases = [Path(b) for b in bases]
        root = os.environ.get(DOCUMENT_ROOT_ENV)
        self.document_roots = [Path(root)] if root else []
        self._by_name: dict[str, Path] | None = None

    def _index(self) -> dict[str, Path]:
        if self._by_name is None:
            self._by_name = {}
            for path in sorted(self.images.rglob("*")) if self.images else []:
                if path.suffix.lower() in IMAGE_SUFFIXES:
                    self._by_name.setdefault(path.name, path)
        return self._by_name

    def find(self, reference: str) -> Path | None:
        candidates = _reference_paths(str(reference))
        is_local_files = "/data/local-files" in str(reference)
        if self.images is not None:
            for candidate in candidates:
                path = self.images / candidate.lstrip("/")
                if path.is_file():
                    return path
            for candidate in candidates:
                found = self._index().get(Path(candidate).name)
                if found is not None:
                    return found
            return None
        for candidate in candidates:
            path = Path(candidate)
            roots = [*self.document_roots, Path("/")] if is_local_files else self.bases
            options = [path] if path.is_absolute() else [root / path for root in roots]
            for option in options:
                if option.is_file():
                    return option
        return None
