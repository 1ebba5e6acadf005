"""The calibration curve on real sets, one physical set at a time: the two shared sets of other makers' tiles
(development only, never trained on) and the development split's own sessions.

Imported by `benchmarks/calibration_curve.py` (`--parts`), which writes the JSON.

- `riichi-table-leomiura`: one riichi set on an automatic table, 67 frames, 7-9 tiles each. Frames come in bursts;
  a scene is a run of frames less than `SCENE_GAP_S` seconds apart by the timestamp in the file name (SOURCE.md).
  Scenes alternate (in time order) into two halves; for k photos a tile, k labelled boxes of each kind are taken
  from one half (from different frames as far as there are; fewer where a kind has fewer), the profile is built from
  them, and every box of the other half is the test; then the halves swap, and the figures are pooled over both
  directions.
- `hk-crops-justinchan`: 73 single-tile crops of two or three Hong Kong-style sets. Leave one crop out: for each
  crop, a profile from at most k of the other crops of each kind reads it. Every crop's views are embedded once at
  each crop zoom (`calibration.fit.CROP_ZOOMS`); each fit takes its tiles' rows (`calibration.fit.subset`).
- the development sessions (`session_curves`): a player calibrating a set the model already knows. Each session of
  the development split (one table, one set, one light; the shipped classifier held them out) with at least
  `SESSION_PHOTOS` source photos is split as riichi is, its source photos alternating into two halves, but its
  calibration tiles are taken as a player photographs them (`square_on_first_k`). Unlike the composited
  construction of `calibration_curve.py` (one crop of each kind from many sessions: a mix no player holds), this
  shows whether a profile of one familiar set reads that set's other photos worse.

Test crops are cut as `benchmarks/eval_classifier.py` cuts a labelled box (`crop_box`), read with and without the
profile by `TileClassifier.probabilities` (a profile reads each crop and its 180-degree turn).
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import cv2
import numpy as np
from fanscan.vision.classify import TileClassifier
from fanscan.vision.crops import crop_box, quad_from_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.profile import SetProfile
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names

from fanscan.calibration.fit import CROP_ZOOMS, FitSettings, embed_zooms, fit_profile, fit_zooms, subset
from fanscan.calibration.sources import CalibrationTile, context_tile

SCENE_GAP_S = 20.0
SESSION_PHOTOS = 6  # source photos a development session needs to be split into two halves
STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})")


def labelled_boxes(folder: Path) -> list[tuple[Path, tuple[float, float, float, float], str]]:
    """(image, box in pixels, tile id) of every labelled box of a YOLO-layout folder."""
    names = read_class_names(find_data_yaml(folder))
    table = guess_table(names)
    out = []
    for item in iter_split(folder):
        if not item.boxes:
            continue
        image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        for box in item.boxes:
            clamped = box.clamped_pixels(w, h)
            if clamped is not None:
                out.append((item.image_path, clamped, table[names[box.class_index]]))
    return out


def scene_of_frames(frames: list[str]) -> dict[str, int]:
    """Scene number of each frame name (see the module doc)."""
    stamps = sorted((datetime(*map(int, STAMP.search(f).groups())).timestamp(), f) for f in frames)
    scene, last, out = -1, None, {}
    for stamp, frame in stamps:
        if last is None or stamp - last >= SCENE_GAP_S:
            scene += 1
        out[frame] = scene
        last = stamp
    return out


def tile_of(box: tuple, images: dict[Path, np.ndarray]) -> CalibrationTile:
    path, (x0, y0, x1, y1), tile, *_ = box
    return context_tile(images[path], quad_from_box(x0, y0, x1, y1), tile, path.name)


def first_k_per_kind(boxes: list[tuple], k: int) -> list[tuple]:
    """k boxes of each kind (all of a kind with fewer), from different frames as far as there are (round-robin over
    frames)."""
    by_kind: dict[str, dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    for box in boxes:
        by_kind[box[2]][box[0].name].append(box)
    chosen = []
    for kind in sorted(by_kind):
        frames = by_kind[kind]
        order = [frames[f][i] for i in range(max(len(v) for v in frames.values())) for f in sorted(frames)
                 if i < len(frames[f])]
        chosen.extend(order[:k])
    return chosen


def read_accuracy(classifier: TileClassifier, crops: np.ndarray, truth: list[str]) -> tuple[int, int]:
    predicted = classifier.probabilities(crops).argmax(axis=1)
    return int(sum(classifier.classes[p] == t for p, t in zip(predicted, truth, strict=True))), len(truth)


def profile_of(shipped: TileClassifier, fitted: dict, name: str) -> TileClassifier:
    """The classifier file `shipped` was loaded from, reading with the profile `fitted`."""
    profile = SetProfile(name, "benchmark", "", shipped.sha256, tuple(shipped.classes), fitted["delta"][0],
                         fitted["delta"][1], moved=fitted.get("moved"), crop_zoom=fitted.get("crop_zoom", 1.0))
    return TileClassifier(shipped.path, profile=profile)


def choice_of(fitted: dict) -> dict:
    """What the fit chose and on what evidence (whatever the fit's version reports)."""
    loo = fitted.get("leave_one_out") or {}
    return {key: loo.get(key) for key in ("chosen_by", "accuracy", "accuracy_without_profile", "left_out")
            if key in loo} | {"penalty": fitted.get("penalty"), "crop_zoom": fitted.get("crop_zoom", 1.0)}


def halves_curve(shipped: TileClassifier, halves: list[list[tuple]], images: dict[Path, np.ndarray], ks: list[int],
                 settings: FitSettings, name: str, calibration_boxes=None,
                 reader: TileClassifier | None = None) -> dict:
    """Calibrate `shipped` (the classifier profiles are built on) on one half (k boxes a kind, `calibration_boxes(half,
    k)`, by default `first_k_per_kind`), read every box of the other half with the profile and with `reader` (the
    shipped reading without a profile; default `shipped`); then the halves swap, figures pooled."""
    pick = calibration_boxes or first_k_per_kind
    reader = reader or shipped
    crops = [np.stack([crop_box(images[p], box, shipped.crop_spec) for p, box, *_ in half]) for half in halves]
    truth = [[b[2] for b in half] for half in halves]
    right = sum(read_accuracy(reader, c, t)[0] for c, t in zip(crops, truth, strict=True))
    out: dict = {"boxes": sum(map(len, truth)), "without_profile": round(right / sum(map(len, truth)), 4),
                 "without_profile_right": right, "curve": []}
    for k in ks:
        right = total = 0
        seconds, choices = [], []
        for calibrate_on in (0, 1):
            tiles = [tile_of(b, images) for b in pick(halves[calibrate_on], k)]
            if not tiles:
                continue
            started = time.perf_counter()
            fitted = fit_profile(shipped, tiles, settings)
            seconds.append(round(time.perf_counter() - started, 1))
            choices.append(choice_of(fitted) | {"calibration_tiles": len(tiles)})
            got, n = read_accuracy(profile_of(shipped, fitted, f"{name}-{k}"), crops[1 - calibrate_on],
                                   truth[1 - calibrate_on])
            right, total = right + got, total + n
        point = {"photos_per_tile": k, "with_profile": round(right / max(total, 1), 4), "right": right,
                 "read": total, "build_seconds": seconds, "choices": choices}
        print(f"{name}, {k} a kind: {point}", flush=True)
        out["curve"].append(point)
    return out


def riichi_curve(shipped: TileClassifier, folder: Path, ks: list[int], settings: FitSettings,
                 reader: TileClassifier | None = None) -> dict:
    boxes = labelled_boxes(folder)
    scenes = scene_of_frames(sorted({b[0].name for b in boxes}))
    images = {p: cv2.imread(str(p), cv2.IMREAD_COLOR) for p in {b[0] for b in boxes}}
    halves = [[b for b in boxes if scenes[b[0].name] % 2 == h] for h in (0, 1)]
    return {"frames": len(images), "scenes": max(scenes.values()) + 1, "scene_gap_s": SCENE_GAP_S,
            "kinds": len({b[2] for b in boxes})} | halves_curve(shipped, halves, images, ks, settings, "riichi",
                                                              reader=reader)


def square_on_first_k(half: list[tuple], k: int) -> list[tuple]:
    """k boxes of each kind for a calibration, as a player photographs them: square on and in colour (rank 1 or 2:
    never from a copy the dataset's augmentation rotated, whose boxes are loose, or turned grey), a whole upright
    tile (rank 2) where the kind has one, from different photos as far as there are; a kind with no such box is left
    out (its row stays the shipped)."""
    best: dict[str, int] = defaultdict(int)
    for box in half:
        best[box[2]] = max(best[box[2]], box[4])
    return first_k_per_kind([b for b in half if b[4] and b[4] == best[b[2]]], k)


def session_curves(shipped: TileClassifier, data: Path, ks: list[int], settings: FitSettings,
                   reader: TileClassifier | None = None) -> dict:
    """One familiar physical set at a time: each development session with at least `SESSION_PHOTOS` source photos
    (the shipped classifier held its sessions out), its photos alternating into two halves by source (a source's
    augmented copies stay on one side)."""
    from fanscan.training.real_data import is_grey, is_rotated_photo
    from fanscan.vision.splits import DEV, session_of, source_of, split_of

    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    by_session: dict[str, list[tuple]] = defaultdict(list)
    images: dict[Path, np.ndarray] = {}
    for item in iter_split(data):
        source = source_of(item.image_path)
        if split_of(source) != DEV or not item.boxes:
            continue
        image = images[item.image_path] = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        # A player photographs the set square on and in colour: not a copy the dataset's augmentation rotated
        # (loose boxes) or turned grey.
        square_on = not is_rotated_photo(image) and not is_grey(image)
        for box in item.boxes:
            clamped = box.clamped_pixels(w, h)
            if clamped is None:
                continue
            x0, y0, x1, y1 = clamped
            upright = 1.25 <= (y1 - y0) / (x1 - x0) <= 1.75 and y1 - y0 >= 40
            rank = (2 if upright else 1) if square_on else 0
            by_session[session_of(source)].append((item.image_path, (x0, y0, x1, y1),
                                                   table[names[box.class_index]], source, rank))
    out: dict = {"sessions": {}}
    for session in sorted(by_session):
        boxes = by_session[session]
        sources = sorted({b[3] for b in boxes})
        if len(sources) < SESSION_PHOTOS:
            continue
        side = {source: i % 2 for i, source in enumerate(sources)}
        halves = [[b for b in boxes if side[b[3]] == h] for h in (0, 1)]
        out["sessions"][session] = {"photos": len(sources), "kinds": len({b[2] for b in boxes})} | halves_curve(
            shipped, halves, images, ks, settings, session, square_on_first_k, reader)
    sessions = out["sessions"].values()
    read = sum(s["boxes"] for s in sessions)
    out["pooled"] = {"without_profile": round(sum(s["without_profile_right"] for s in sessions) / read, 4),
                     "curve": [{"photos_per_tile": k,
                                "with_profile": round(sum(s["curve"][i]["right"] for s in sessions)
                                                      / sum(s["curve"][i]["read"] for s in sessions), 4),
                                "sessions_lower": sorted(n for n, s in out["sessions"].items()
                                                         if s["curve"][i]["with_profile"] < s["without_profile"])}
                               for i, k in enumerate(ks)]}
    print(f"sessions pooled: {out['pooled']}", flush=True)
    return out


def hk_curve(shipped: TileClassifier, folder: Path, ks: list[int], settings: FitSettings,
             reader: TileClassifier | None = None) -> dict:
    boxes = labelled_boxes(folder)
    images = {p: cv2.imread(str(p), cv2.IMREAD_COLOR) for p in {b[0] for b in boxes}}
    tiles = [tile_of(b, images) for b in boxes]
    crops = np.stack([crop_box(images[p], box, shipped.crop_spec) for p, box, _ in boxes])
    truth = [t for _, _, t in boxes]
    started = time.perf_counter()
    embedded = embed_zooms(shipped, tiles, settings, CROP_ZOOMS)
    embed_seconds = round(time.perf_counter() - started, 1)
    out = {"crops": len(boxes), "kinds": len(set(truth)), "embed_seconds_all_crops": embed_seconds,
           "without_profile": round(read_accuracy(reader or shipped, crops, truth)[0] / len(truth), 4), "curve": []}
    classes = tuple(shipped.classes)
    for k in ks:
        right = 0
        chosen: dict[str, int] = defaultdict(int)
        zooms: dict[str, int] = defaultdict(int)
        fit_seconds = []
        for left_out in range(len(tiles)):
            others = [i for i in range(len(tiles)) if i != left_out]
            keep, seen = [], defaultdict(int)
            for i in others:
                if seen[truth[i]] < k:
                    keep.append(i)
                    seen[truth[i]] += 1
            started = time.perf_counter()
            fitted = fit_zooms([subset(data, keep) for data in embedded], [tiles[i] for i in keep], classes, settings)
            fit_seconds.append(time.perf_counter() - started)
            chosen[str(choice_of(fitted)["penalty"])] += 1
            zooms[f"{fitted['crop_zoom']:g}"] += 1
            got, _ = read_accuracy(profile_of(shipped, fitted, f"hk-{k}"), crops[left_out:left_out + 1],
                                   truth[left_out:left_out + 1])
            right += got
        point = {"photos_per_tile": k, "with_profile": round(right / len(tiles), 4),
                 "median_fit_seconds": round(float(np.median(fit_seconds)), 2), "penalties_chosen": dict(chosen),
                 "crop_zooms_chosen": dict(zooms)}
        print(f"hk, at most {k} a kind: {point}", flush=True)
        out["curve"].append(point)
    return out
