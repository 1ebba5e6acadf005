"""Where and how a benchmark writes its result: JSON, UTF-8, parent folders made, a final newline.

Every script in this folder imports it after putting the repository root first on `sys.path` (a script's own folder
holds `scoring.py`, which would shadow the package of that name).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_json(path: str | Path, data: Any, indent: int = 2) -> Path:
    """`data` as JSON at `path` (its folders made if missing); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
