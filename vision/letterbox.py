"""Fit an image into a model's input without distorting it: scale (aspect kept) and pad with grey; then the
normalised float blob both models take.

Both models were trained on letterboxed input with the grey value 114 (the YOLO convention), so both letterbox
the same way: the classifier centres a crop that was not cut to its size, the detector puts the photo top-left
and pads right / bottom only to a multiple of its stride (a 4:3 photo runs at 384 x 288; no offset to undo).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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
        top, left = (height - new_h) // 2, (width - new_w) // 2
        bottom, right = height - new_h - top, width - new_w - left
    else:
        top = left = 0
        bottom = math.ceil(new_h / pad_multiple) * pad_multiple - new_h
        right = math.ceil(new_w / pad_multiple) * pad_multiple - new_w
    canvas = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_GREY,) * 3)
    return canvas, new_w / w


def normalised_blob(images: Sequence[np.ndarray], mean: Sequence[float], std: Sequence[float], channel_order: str,
                    pixel_scale: float = 1 / 255) -> np.ndarray:
    """(N, 3, H, W) float32 `(pixel * pixel_scale - mean) / std` per channel of N same-sized BGR uint8 images, in
    the model's `channel_order` ("RGB" or "BGR"; `mean` and `std` are in that order)."""
    params = cv2.dnn.Image2BlobParams()
    # blobFromImage computes (pixel - mean) * scalefactor, per channel after the swap.
    params.mean = tuple(float(m) / pixel_scale for m in mean)
    params.scalefactor = tuple(pixel_scale / float(s) for s in std)
    params.swapRB = channel_order.upper() == "RGB"
    params.ddepth = cv2.CV_32F
    if len(images) == 1:
        return cv2.dnn.blobFromImageWithParams(images[0], params)
    return cv2.dnn.blobFromImagesWithParams(list(images), params)
