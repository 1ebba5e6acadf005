"""Text columns for terminal output: Chinese characters take two columns, so `str.ljust` misaligns them."""

from __future__ import annotations

import unicodedata


def width(text: str) -> int:
    """Terminal columns of a text: wide and full-width characters (CJK) take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, columns: int) -> str:
    """`text` followed by spaces up to `columns` terminal columns."""
    return text + " " * max(0, columns - width(text))
