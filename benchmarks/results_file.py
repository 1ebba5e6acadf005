"""Where and how a benchmark writes its result: JSON, UTF-8, parent folders made, a final newline.

The scripts in this folder run as `python benchmarks/NAME.py` (from any directory, with fanscan installed): Python
puts the script's own folder first on `sys.path`, so they import this module and each other as plain siblings
(`from results_file import write_json`). Nothing patches `sys.path`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def write_json(path: str | Path, data: Any, indent: int = 2) -> Path:
    """`data` as JSON at `path` (its folders made if missing); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def report(result: Any, path: str | Path | None) -> int:
    """Print `result` as JSON and, when `path` is given, write it there too; the script's exit status (0)."""
    print(json.dumps(result, indent=2))
    if path:
        write_json(path, result)
    return 0


def shown_path(path: str | Path) -> str:
    """A path as the README writes it: relative to the repository root (`../shared/data/...`), so that result files
    do not depend on where the checkout lies."""
    return os.path.relpath(os.path.abspath(path), ROOT)
