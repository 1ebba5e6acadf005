"""Progress of a batch on stderr: a line per photo (`[12/254] hand_012.jpg: 24 fan`), or with `json_lines` one JSON
object per photo and one at the end, for a program to follow (`--json-progress`): `note`, `row`, `log` (what Dask
would have printed) and `summary` events, one a line, each written whole (lines come from several threads)."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import IO, Any


class Progress:
    def __init__(self, total: int, json_lines: bool = False, stream: IO[str] | None = None) -> None:
        self.total = total
        self.done = 0
        self.json_lines = json_lines
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()
        self._writing = threading.Lock()

    def _emit(self, event: dict[str, Any]) -> None:
        self._line(json.dumps(event, ensure_ascii=False))

    def _line(self, text: str) -> None:
        with self._writing:  # one write a line: two threads' lines never mix
            self.stream.write(text + "\n")
            self.stream.flush()

    def log(self, source: str, level: str | None, text: str) -> None:
        """A line Dask would have printed: its logger's name (or `worker`), its level (None for a raw stderr line)."""
        if self.json_lines:
            self._emit({"event": "log", "source": source, "level": level, "text": text})
        else:
            self._line(text)

    def note(self, text: str) -> None:
        if self.json_lines:
            self._emit({"event": "note", "text": text})
        else:
            self._line(text)

    def row(self, row: dict[str, Any]) -> None:
        self.done += 1
        if self.json_lines:
            elapsed = time.perf_counter() - self.started
            self._emit({"event": "row", "done": self.done, "total": self.total, "file": row["file"], "ok": row["ok"],
                        "fan": row.get("total"), "error": row.get("error"), "elapsed_s": round(elapsed, 3),
                        "photos_per_s": round(self.done / elapsed, 2) if elapsed > 0 else None})
        else:
            what = f"{row['total']} fan" if row["ok"] else f"error: {row['error']}"
            self._line(f"[{self.done}/{self.total}] {row['file']}: {what}")

    def summary(self, text: str, figures: dict[str, Any]) -> None:
        if self.json_lines:
            self._emit({"event": "summary", "text": text, **figures})
        else:
            self._line(text)
