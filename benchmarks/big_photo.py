"""The 12-megapixel photo the speed benchmarks time: a real photo upscaled to 4000 x 3000 and saved as a JPEG of
quality 92, as a phone would (imported by the scripts of this folder as a sibling module)."""

from __future__ import annotations

from pathlib import Path

import cv2

SIZE_12MP = (4000, 3000)


def write_12mp_copy(photo: Path, path: Path) -> Path:
    """Write `photo` upscaled to 12 MP at `path` and return `path`."""
    upscaled = cv2.resize(cv2.imread(str(photo)), SIZE_12MP, interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(path), upscaled, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path
