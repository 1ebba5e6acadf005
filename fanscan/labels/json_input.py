"""Reading a JSON file someone else wrote (an export, a COCO file): any way it can be unreadable is one line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fanscan.scoring.errors import FanscanError


def read_json(path: Path, failure: str) -> Any:
    """The parsed content of `path`; a `FanscanError` "PATH: FAILURE: why" when it cannot be read as JSON."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise FanscanError(f"{path}: {failure}: a folder, not a file") from None
    except OSError as error:
        raise FanscanError(f"{path}: {failure}: {error.strerror or type(error).__name__}") from None
    except UnicodeDecodeError as error:
        raise FanscanError(f"{path}: {failure}: not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FanscanError(f"{path}: {failure}: {error}") from None
    except RecursionError:  # the parser recurses once per level: [[[[... 100 000 deep
        raise FanscanError(f"{path}: {failure}: nested too deep (lists or objects inside each other more than "
                           "about a thousand levels; no export is)") from None


def photo_size(width: Any, height: Any) -> tuple[int, int] | None:
    """A recorded photo size as two positive whole pixel counts, or None when it is not one (missing, zero,
    negative, NaN, infinite or not a number): the photo's own size is used then."""
    try:
        w, h = float(width), float(height)
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(w) and math.isfinite(h)) or w < 1 or h < 1:
        return None
    return int(w), int(h)
