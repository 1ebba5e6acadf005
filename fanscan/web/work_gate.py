"""The server's work in flight, bounded: at most `READERS` photos decoded and read at once, each within a pixel
budget.

Requests beyond that wait their turn (the upload already spooled to disk, a thread of the server's pool waiting),
so a burst of uploads is served in turn rather than decoded all at once: memory stays that of `READERS` photos
whatever the load. A photo that would decode to more than `MAX_DECODED_PIXELS` (a PNG or WebP, which cannot be
decoded reduced as a JPEG can) is refused with one line before it is decoded.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fanscan.batch.local import local_threads
from fanscan.scoring.errors import FanscanError
from fanscan.vision.load import decoded_pixels, read_header

# One photo a core, up to four, as the in-process batch reads them: more at once only adds memory.
READERS = local_threads()
# 40 MP: a 12-MP phone PNG passes with room; a 100-MP PNG (300 MB decoded) does not.
MAX_DECODED_PIXELS = 40_000_000
_readers = threading.BoundedSemaphore(READERS)


def check_pixel_budget(path: Path, name: str) -> None:
    """Refuse a photo whose decoding would hold more than `MAX_DECODED_PIXELS` (read from its header only)."""
    data = path.read_bytes()
    if not data:
        return  # the loader says what is wrong with an empty file
    try:
        header = read_header(data, name)
    except FanscanError:
        return  # not a photo: the loader refuses it with its own line
    if decoded_pixels(header) > MAX_DECODED_PIXELS:
        raise FanscanError(f"{name}: {header.width} x {header.height} pixels is more than this server decodes "
                           f"({MAX_DECODED_PIXELS / 1e6:.0f} MP for a {header.format.upper()}); send a JPEG or a "
                           "smaller photo")


@contextmanager
def photo_turn(path: Path, name: str) -> Iterator[None]:
    """Within: this request's turn to decode and read its photo (after the pixel budget's check)."""
    check_pixel_budget(path, name)
    with _readers:
        yield
