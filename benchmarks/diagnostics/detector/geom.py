"""Geometry of raw detector boxes vs labels (diagnosis only)."""

import sys

import cv2
import numpy as np
from fanscan.vision.detect import TileDetector, decode, nms, partition_overlaps
from fanscan.vision.detection_metrics import iou_matrix, match
from fanscan.vision.yolo_data import iter_split

split = sys.argv[1]
step = int(sys.argv[2]) if len(sys.argv) > 2 else 1
thr = 0.3
d = TileDetector("models/tile_detector.onnx", threads=1)
items = list(iter_split(split))[::step]
rows = []
tot = {"raw": [0, 0, 0], "part": [0, 0, 0]}
centre_hit = 0
ntrue = 0
for it in items:
    im = cv2.imread(str(it.image_path))
    h, w = im.shape[:2]
    truth = np.array([b.to_pixels(w, h) for b in it.boxes], np.float32).reshape(-1, 4)
    heat, dist, scale = d.run(im)
    boxes, scores, centres = decode(heat, dist, 4, thr)
    keep = nms(boxes / scale, scores, 0.5)
    b = (boxes / scale)[keep]
    c = (centres / scale)[keep]
    variants = {"raw": b, "part": partition_overlaps(b, c)}
    # symmetric: half-width = min(l, r) around the peak centre
    pcx = (b[:, 0] + b[:, 2]) / 2

    for k, v in variants.items():
        m = match(v, truth, 0.5)
        tot[k][0] += len(m)
        tot[k][1] += len(v)
        tot[k][2] += len(truth)
    # geometry: pair each truth with raw pred whose box centre is nearest (within truth box)
    if len(b) and len(truth):
        ious = iou_matrix(truth, b)
        for j, t in enumerate(truth):
            i = int(np.argmax(ious[j]))
            if ious[j, i] < 0.1:
                continue
            p = b[i]
            tw, th = t[2] - t[0], t[3] - t[1]
            rows.append(
                [
                    tw * scale,
                    th * scale,
                    (p[2] - p[0]) / tw,
                    (p[3] - p[1]) / th,
                    ((p[0] + p[2]) / 2 - (t[0] + t[2]) / 2) * scale,
                    ((p[1] + p[3]) / 2 - (t[1] + t[3]) / 2) * scale,
                    (c[i, 0] - (t[0] + t[2]) / 2) * scale,
                    (c[i, 1] - (t[1] + t[3]) / 2) * scale,
                    ious[j, i],
                    (p[0] - t[0]) * scale,
                    (p[2] - t[2]) * scale,
                    (p[1] - t[1]) * scale,
                    (p[3] - t[3]) * scale,
                ]
            )
r = np.array(rows)
for k, (tp, n_p, n_t) in tot.items():
    print(f"{k:6s} recall {tp / n_t:.4f} precision {tp / max(n_p, 1):.4f}")
names = [
    "tw_px",
    "th_px",
    "w_ratio",
    "h_ratio",
    "box_dx",
    "box_dy",
    "peak_dx",
    "peak_dy",
    "iou",
    "dl",
    "dr",
    "dt",
    "db",
]
print("percentiles 10/25/50/75/90 (px at 384 input)")
for i, n in enumerate(names):
    print(f"{n:8s}", np.percentile(r[:, i], [10, 25, 50, 75, 90]).round(3))
print("n", len(r), "iou<0.5 share", (r[:, 8] < 0.5).mean().round(4))
bad = r[r[:, 8] < 0.5]
print("among iou<0.5: w_ratio median", np.median(bad[:, 2]).round(3), "h_ratio median", np.median(bad[:, 3]).round(3))
print("by tile height at input (px): n, median w_ratio, h_ratio, dl, dr, dt, db, iou")
for lo, hi in ((0, 20), (20, 30), (30, 40), (40, 55), (55, 80), (80, 400)):
    s = r[(r[:, 1] >= lo) & (r[:, 1] < hi)]
    if len(s):
        print(f"{lo:3d}-{hi:3d}", len(s), np.median(s[:, [2, 3, 9, 10, 11, 12, 8]], 0).round(2))
