"""Fit an image into a model's input without distorting it: scale (aspect kept) and pad with grey.

Both models were trained on letterboxed input with the grey value 114 (the YOLO convention), so both letterbox
the same way: the classifier centres a crop that was not cut to its size, the detector puts the photo top-left
and pads right / bottom only to a multiple of its stride (a 4:3 photo runs at 384 x 288; no offset to undo).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

PAD_GREY = 114


def letterbox(image: np.ndarray, width: int, height: int, pad_multiple: int | None = None
              ) -> tuple[np.ndarray, float]:
    """(canvas uint8, scale): `image` (H x W x 3) scaled by the largest factor that fits `width` x `height`.

    `pad_multiple` None: the canvas is `width` x `height` with the image centred. Otherwise the image sits at the
    top left and the canvas is the scaled image padded right / bottom to a multiple of `pad_multiple`. `scale` is
    the scaled width over the original width (canvas pixels per image pixel, from the rounded size)."""
    h, w = image.shape[:2]
    scale = min(width / w, height / h)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    if pad_multiple is None:
        canvas = np.full((height, width, 3), PAD_GREY, np.uint8)
        y, x = (height - new_h) // 2, (width - new_w) // 2
    else:
        m = pad_multiple
        canvas = np.full((math.ceil(new_h / m) * m, math.ceil(new_w / m) * m, 3), PAD_GREY, np.uint8)
        y = x = 0
    canvas[y:y + new_h, x:x + new_w] = resized
    return canvas, new_w / w
