"""The 12-megapixel photos the speed benchmarks time: a real photo upscaled to 4000 x 3000 and saved as a JPEG of
quality 92, as a phone would; and the same photo at its own size in a 12-MP frame (small tiles, as in a photo of a
whole table). Imported by the scripts of this folder as a sibling module."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

SIZE_12MP = (4000, 3000)


def write_12mp_copy(photo: Path, path: Path) -> Path:
    """Write `photo` upscaled to 12 MP at `path` and return `path`."""
    upscaled = cv2.resize(cv2.imread(str(photo)), SIZE_12MP, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(path), upscaled, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def write_12mp_small_tiles_copy(photo: Path, path: Path) -> Path:
    """Write `photo` at its own size in the middle of a grey 12-MP frame at `path` (small tiles, as in a photo of
    the whole table) and return `path`."""
    image = cv2.imread(str(photo))
    width, height = SIZE_12MP
    canvas = np.full((height, width, 3), 90, np.uint8)
    h, w = image.shape[:2]
    top, left = (height - h) // 2, (width - w) // 2
    canvas[top:top + h, left:left + w] = image
    cv2.imwrite(str(path), canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path
