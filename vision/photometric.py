"""Light, colour, blur, resolution, noise and JPEG jitter of a tile crop (numpy / OpenCV).

Shared by training (`training.augment`) and by set calibration (`fanscan.calibration.views`), which runs without
torch: what a different camera, light or messenger does to a crop.
"""

from __future__ import annotations

import cv2
import numpy as np


def jpeg_roundtrip(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The image after a JPEG encode / decode at a random quality 30-89 (phone and messenger compression)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def photometric(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, colour, blur, resolution, noise and JPEG jitter of one uint8 BGR image."""
    x = image.astype(np.float32)
    x = x * rng.uniform(0.65, 1.3) + rng.normal(0, 14)
    x = x * rng.uniform(0.88, 1.12, 3)
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.7, 1.3) + mean
    grey = x.mean(axis=2, keepdims=True)
    x = grey + (x - grey) * (0.0 if rng.random() < 0.08 else rng.uniform(0.6, 1.4))
    if rng.random() < 0.25:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.3))
    h, w = x.shape[:2]
    if rng.random() < 0.2:  # a small tile in the photo: fewer pixels than the input
        f = rng.uniform(0.45, 0.8)
        x = cv2.resize(cv2.resize(x, (max(4, int(w * f)), max(4, int(h * f))), interpolation=cv2.INTER_AREA),
                       (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 9), x.shape)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        out = jpeg_roundtrip(out, rng)
    return out
