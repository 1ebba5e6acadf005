"""A progress bar on stderr for `fanscan calibrate`: redrawn in place on a terminal, nothing otherwise (a log or a
pipe gets the closing line only), nothing with `--quiet`."""

from __future__ import annotations

import sys
from typing import IO

WIDTH = 24


class ProgressBar:
    def __init__(self, stream: IO[str] | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.drawn = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = round(WIDTH * min(done, total) / total)
        self.stream.write(f"\r{stage:<18} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total}\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line (before anything else is printed)."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False
