"""Prototype: estimate the Roboflow rotation/shear of a train copy from its grey fill, undo it on image and boxes."""

import math
import sys

import cv2
import numpy as np

from vision.yolo_data import iter_split


def edge_directions(im):
    h, w = im.shape[:2]
    corners = [im[1, 1], im[1, w - 2], im[h - 2, 1], im[h - 2, w - 2]]
    grey = [c for c in corners if int(c.max()) - int(c.min()) <= 2]
    if len(grey) < 2:
        return None
    f = np.median(np.array(grey, np.float32), 0)
    near = (np.abs(im.astype(np.float32) - f).max(2) <= 6).astype(np.uint8)
    _n, lab = cv2.connectedComponents(near)
    fill = np.zeros_like(near)
    for y, x in ((1, 1), (1, w - 2), (h - 2, 1), (h - 2, w - 2)):
        if near[y, x]:
            fill |= (lab == lab[y, x]).astype(np.uint8)
    content = (1 - fill).astype(np.uint8) * 255
    content = cv2.morphologyEx(content, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    cs, _ = cv2.findContours(content, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    hull = cv2.convexHull(max(cs, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, 3.0, True).reshape(-1, 2).astype(np.float32)
    angles, lengths = [], []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        def on_border(p):
            return p[0] <= 2 or p[1] <= 2 or p[0] >= w - 3 or p[1] >= h - 3
        if on_border(a) and on_border(b) and (abs(a[0] - b[0]) < 3 or abs(a[1] - b[1]) < 3):
            continue  # a piece of the frame
        d = b - a
        L = float(np.hypot(*d))
        if L < 40:
            continue
        angles.append(math.degrees(math.atan2(d[1], d[0])) % 180)
        lengths.append(L)
    if not angles:
        return None
    # two families: near-horizontal-ish (image of x axis) and the other, separated by ~90 deg (+- shear)
    ang = np.array(angles)
    L = np.array(lengths)
    ref = ang[np.argmax(L)]
    diff = (ang - ref + 90) % 180 - 90
    fam1 = np.abs(diff) < 45
    a1 = ref + np.average(diff[fam1], weights=L[fam1])
    if (~fam1).any():
        diff2 = (ang[~fam1] - (a1 + 90) + 90) % 180 - 90
        a2 = a1 + 90 + np.average(diff2, weights=L[~fam1])
    else:
        a2 = a1 + 90
    # choose which family is the image of the x axis: the one within 45 deg of horizontal
    t1 = (a1 + 90) % 180 - 90
    t2 = (a2 + 90) % 180 - 90
    ax, ay = (t1, a2) if abs(t1) <= abs(t2) else (t2, a1)
    u = np.array([math.cos(math.radians(ax)), math.sin(math.radians(ax))])
    v = np.array([math.cos(math.radians(ay)), math.sin(math.radians(ay))])
    if v[1] < 0:
        v = -v
    return u, v


def unwarp(im, boxes):
    r = edge_directions(im)
    if r is None:
        return None
    u, v = r
    h, w = im.shape[:2]
    M = np.array([[abs(u[0]), abs(v[0])], [abs(u[1]), abs(v[1])]])
    if abs(np.linalg.det(M)) < 0.35:  # near 45 deg: sizes cannot be unmixed
        return None
    A = np.stack([u, v], 1)  # source axis -> augmented direction
    B = np.linalg.inv(A)
    c = np.array([w / 2, h / 2])
    Bf = np.concatenate([B, (c - B @ c)[:, None]], 1).astype(np.float32)
    out = cv2.warpAffine(im, Bf, (w, h), borderValue=(0, 0, 0))
    res = []
    for x0, y0, x1, y1 in boxes:
        W, H = x1 - x0, y1 - y0
        p, q = np.linalg.solve(M, [W, H])
        if p <= 2 or q <= 2:
            res.append(None)
            continue
        cc = B @ (np.array([(x0 + x1) / 2, (y0 + y1) / 2]) - c) + c
        res.append((cc[0] - p / 2, cc[1] - q / 2, cc[0] + p / 2, cc[1] + q / 2))
    return out, res, math.degrees(math.atan2(u[1], u[0])), math.degrees(math.atan2(v[1], v[0]))


if __name__ == "__main__":
    items = list(iter_split(sys.argv[1]))
    sel = [int(x) for x in sys.argv[2].split(",")]
    ims = []
    for k in sel:
        it = items[k]
        im = cv2.imread(str(it.image_path))
        h, w = im.shape[:2]
        boxes = [b.to_pixels(w, h) for b in it.boxes]
        r = unwarp(im, boxes)
        if r is None:
            print(k, "no estimate")
            out = im.copy()
            nb = []
        else:
            out, nb, ax, ay = r
            print(k, f"x-axis {ax:.1f} y-axis {ay:.1f} deg")
        for b in nb:
            if b is not None:
                cv2.rectangle(out, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 255, 0), 2)
        ims.append(cv2.resize(out, (400, 400)))
    rows = [np.concatenate(ims[i : i + 4], 1) for i in range(0, len(ims), 4)]
    cv2.imwrite(sys.argv[3], np.concatenate(rows, 0))
