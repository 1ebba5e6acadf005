"""Counts in the batch's messages: `1 row`, `2 rows`, never `1 rows`."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and the noun in the number it takes (`plural`: when it is not the singular and an `s`)."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
