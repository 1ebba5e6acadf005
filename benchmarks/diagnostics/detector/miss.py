import sys

import cv2
import numpy as np
from fanscan.vision.detect import TileDetector
from fanscan.vision.detection_metrics import iou_matrix, match
from fanscan.vision.yolo_data import iter_split

d = TileDetector("models/tile_detector.onnx", threads=1)
items = list(iter_split(sys.argv[1]))
kinds = {"matched": 0, "centre_inside_but_iou<0.5": 0, "no_centre_inside": 0}
fp = {"fp_centre_in_label": 0, "fp_no_label": 0}
ious_bad = []
for it in items:
    im = cv2.imread(str(it.image_path))
    h, w = im.shape[:2]
    truth = np.array([b.to_pixels(w, h) for b in it.boxes], np.float32).reshape(-1, 4)
    tiles = d.detect(im)
    b = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
    m = match(b, truth, 0.5)
    mt = {j for _, j in m}
    mp = {i for i, _ in m}
    pc = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1) if len(b) else np.zeros((0, 2))
    for j, t in enumerate(truth):
        if j in mt:
            kinds["matched"] += 1
            continue
        inside = (pc[:, 0] > t[0]) & (pc[:, 0] < t[2]) & (pc[:, 1] > t[1]) & (pc[:, 1] < t[3])
        if inside.any():
            kinds["centre_inside_but_iou<0.5"] += 1
            ious_bad.append(iou_matrix(t[None], b[inside]).max())
        else:
            kinds["no_centre_inside"] += 1
    for i in range(len(b)):
        if i in mp:
            continue
        inside = (
            (pc[i, 0] > truth[:, 0]) & (pc[i, 0] < truth[:, 2]) & (pc[i, 1] > truth[:, 1]) & (pc[i, 1] < truth[:, 3])
        )
        fp["fp_centre_in_label" if inside.any() else "fp_no_label"] += 1
print(kinds, fp, "ious of box-failures", np.percentile(ious_bad, [10, 50, 90]).round(2) if ious_bad else None)
