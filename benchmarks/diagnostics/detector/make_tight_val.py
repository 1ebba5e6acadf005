import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))

from unwarp import unwarp

from vision.yolo_data import iter_split

src, dst = Path(sys.argv[1]), Path(sys.argv[2])
(dst / "images").mkdir(parents=True, exist_ok=True)
(dst / "labels").mkdir(parents=True, exist_ok=True)
shutil.copy(src / "data.yaml", dst / "data.yaml")
n_img = n_box = 0
for it in iter_split(src):
    im = cv2.imread(str(it.image_path))
    h, w = im.shape[:2]
    boxes = [b.to_pixels(w, h) for b in it.boxes]
    r = unwarp(im, boxes)
    if r is None or any(b is None for b in r[1]):
        continue
    out, nb = r[0], r[1]
    lines = []
    for b, lb in zip(nb, it.boxes, strict=False):
        x0, y0, x1, y1 = np.clip(b, 0, [w, h, w, h])
        area = (b[2] - b[0]) * (b[3] - b[1])
        if (x1 - x0) * (y1 - y0) < 0.6 * area:
            continue  # mostly cut off by the frame: skip
        lines.append(
            f"{lb.class_index} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        )
    cv2.imwrite(str(dst / "images" / it.image_path.name), out, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (dst / "labels" / (it.image_path.stem + ".txt")).write_text("\n".join(lines) + "\n")
    n_img += 1
    n_box += len(lines)
print("images", n_img, "boxes", n_box)
