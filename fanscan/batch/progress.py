"""Progress of a batch on stderr: a line per photo (`[12/254] hand_012.jpg: 24 fan`), or with `json_lines` one JSON
object per photo and one at the end, for a program to follow (`--json-progress`)."""

from __future__ import annotations

import json
import sys
import time
from typing import IO, Any


class Progress:
    def __init__(self, total: int, json_lines: bool = False, stream: IO[str] | None = None) -> None:
        self.total = total
        self.done = 0
        self.json_lines = json_lines
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()

    def _emit(self, event: dict[str, Any]) -> None:
        print(json.dumps(event, ensure_ascii=False), file=self.stream, flush=True)

    def note(self, text: str) -> None:
        if self.json_lines:
            self._emit({"event": "note", "text": text})
        else:
            print(text, file=self.stream, flush=True)

    def row(self, row: dict[str, Any]) -> None:
        self.done += 1
        if self.json_lines:
            elapsed = time.perf_counter() - self.started
            self._emit({"event": "row", "done": self.done, "total": self.total, "file": row["file"], "ok": row["ok"],
                        "fan": row.get("total"), "error": row.get("error"), "elapsed_s": round(elapsed, 3),
                        "photos_per_s": round(self.done / elapsed, 2) if elapsed > 0 else None})
        else:
            what = f"{row['total']} fan" if row["ok"] else f"error: {row['error']}"
            print(f"[{self.done}/{self.total}] {row['file']}: {what}", file=self.stream, flush=True)

    def summary(self, text: str, figures: dict[str, Any]) -> None:
        if self.json_lines:
            self._emit({"event": "summary", "text": text, **figures})
        else:
            print(text, file=self.stream, flush=True)
