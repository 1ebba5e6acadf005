import sys

import cv2
import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))

from unwarp import unwarp

from vision.yolo_data import iter_split

ok = fail = 0
before = []
after = []
angles = []
for it in list(iter_split(sys.argv[1])):
    im = cv2.imread(str(it.image_path))
    h, w = im.shape[:2]
    boxes = [b.to_pixels(w, h) for b in it.boxes]
    r = [max(x1 - x0, y1 - y0) / max(min(x1 - x0, y1 - y0), 1e-6) for x0, y0, x1, y1 in boxes]
    if not r:
        continue
    before.append(np.median(r))
    res = unwarp(im, boxes)
    if res is None:
        fail += 1
        continue
    ok += 1
    angles.append(res[2])
    nb = [b for b in res[1] if b is not None]
    if nb:
        after.append(np.median([max(b[2] - b[0], b[3] - b[1]) / max(min(b[2] - b[0], b[3] - b[1]), 1e-6) for b in nb]))
print("estimated", ok, "no estimate", fail)
print(
    "per-image median aspect before",
    np.percentile(before, [10, 25, 50, 75, 90]).round(2),
    "share>=1.3",
    np.mean(np.array(before) >= 1.3).round(3),
)
print(
    "after unwarp (estimated ones)",
    np.percentile(after, [10, 25, 50, 75, 90]).round(2),
    "share>=1.3",
    np.mean(np.array(after) >= 1.3).round(3),
)
print("x-axis angle pct", np.percentile(angles, [5, 25, 50, 75, 95]).round(1))
