"""How much a set profile (`fanscan calibrate`) helps, for 1, 2 and 4 calibration photos a tile.

    python benchmarks/calibration_curve.py --json benchmarks/results/calibration_curve.json
    python benchmarks/calibration_curve.py --parts riichi,hk     # only the two shared real sets
    python benchmarks/calibration_curve.py --classifier FILE --json OUT.json   # another classifier file's embedding

Profiles are built on `vision.classify.PROFILE_MODEL` (the file `fanscan calibrate` uses); "no profile" is the
shipped reading, `vision.classify.DEFAULT_MODEL` (`--reader`).

Parts (`--parts`, default all): `dev` and `recoloured` (the construction below), `sessions` (one familiar physical
set at a time: each development session of 6 or more photos, calibrated on half its photos and read on the other
half), `artwork` (one rendered set), `riichi` and `hk` (the shared sets of other makers' tiles); `sessions`, `riichi`
and `hk` are in `benchmarks/calibration_sets.py`.

The construction (no photo of it was ever trained on): the photos of the development split, which the shipped
classifier held out (`shipped_validation_source`: 28 photo sessions, 234 photos), are split again by a second hash of
the session into a calibration half and a test half. For k photos a tile, k laid-out photos are
composited from crops of the calibration half (one crop of each of the 42 kinds, in the five rows of
`fanscan calibrate --help`, on a plain cloth), and `fanscan calibrate`'s own code reads them (detector, rows,
labels by position), builds the profile and measures its leave-one-out figure. The test is every labelled box of
the test half, cut as `benchmarks/eval_classifier.py` cuts it, read with and without the profile.

The calibration crops come from upright tiles in photos that were not rotated by the dataset's augmentation (a
calibration photo is taken square on; a kind without such a crop takes any), preferring a different source photo
for each of a kind's k crops.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the fanscan CLI does (see fanscan/cli.py); before numpy loads
import cv2
import numpy as np
from calibration_sets import hk_curve, profile_of, riichi_curve, session_curves
from fanscan.scoring.errors import FanscanError
from fanscan.training.real_data import is_rotated_photo
from fanscan.vision.classify import DEFAULT_MODEL, PROFILE_MODEL, TileClassifier
from fanscan.vision.crops import crop_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.detect import default_detector
from fanscan.vision.splits import DEV, session_of, source_of, split_of
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names
from results_file import ROOT, write_json

from fanscan.calibration.fit import FitSettings, fit_profile
from fanscan.calibration.sources import LAYOUT, read_sources

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"
TILE_HEIGHT = 96  # px of a pasted tile in a composited layout photo
GAP, ROW_GAP, MARGIN = 14, 40, 48
PARTS = ("dev", "recoloured", "sessions", "artwork", "riichi", "hk")
GROUPS = {"suits": set("mps"), "honours": set("ESWNCFP"), "flowers_seasons": set("abcdefgh")}


def shipped_validation_source(source: str) -> bool:
    """A source photo the shipped classifier never trained on: one of its development split's photo sessions
    (`fanscan.vision.splits`; models/tile_classifier.md), which its training held out."""
    return split_of(source) == DEV


def in_calibration_half(source: str) -> bool:
    """Calibration and test halves by photo session: no session (one table, one light) on both sides."""
    return hashlib.sha1(f"calibration:{session_of(source)}".encode()).digest()[0] < 128


def group_of(tile: str) -> str:
    return next(name for name, chars in GROUPS.items() if tile[-1] in chars)


def collect(data: Path) -> tuple[dict[str, list[tuple]], list[tuple]]:
    """Calibration candidates per tile kind (image path, box, source) and test boxes (image path, box, tile)."""
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    candidates: dict[str, list[tuple]] = defaultdict(list)
    test: list[tuple] = []
    for item in iter_split(data):
        source = source_of(item.image_path)
        if not shipped_validation_source(source):
            continue
        image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        calibration = in_calibration_half(source)
        square_on = not is_rotated_photo(image)
        for box in item.boxes:
            clamped = box.clamped_pixels(w, h)
            if clamped is None:
                continue
            x0, y0, x1, y1 = clamped
            tile = table[names[box.class_index]]
            if calibration:
                upright = 1.25 <= (y1 - y0) / (x1 - x0) <= 1.75 and y1 - y0 >= 40  # one whole tile, big
                candidates[tile].append((item.image_path, (x0, y0, x1, y1), source, square_on and upright))
            else:
                test.append((item.image_path, (x0, y0, x1, y1), tile))
    return candidates, test


def picks(candidates: list[tuple], k: int) -> list[tuple]:
    """k crops of one kind: upright tiles of unrotated photos first (others only where a kind has none), a different
    source photo for each as far as there are (then cycling)."""
    preferred = [c for c in candidates if c[3]] or candidates
    by_source: dict[str, list[tuple]] = defaultdict(list)
    for c in preferred:
        by_source[c[2]].append(c)
    order = [by_source[s][i] for i in range(max(len(v) for v in by_source.values()))
             for s in sorted(by_source) if i < len(by_source[s])]
    return [order[i % len(order)] for i in range(k)]


def composite(tiles: list[list[tuple]], seed: int) -> tuple[np.ndarray, list[tuple[float, ...]]]:
    """A laid-out photo: the rows of `tiles` (image path, box) pasted on a plain cloth; and where each tile went."""
    rng = np.random.default_rng(seed)
    pasted = []
    for row in tiles:
        images = []
        for path, (x0, y0, x1, y1), *_ in row:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            cut = image[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))]
            scale = TILE_HEIGHT / cut.shape[0]
            images.append(cv2.resize(cut, (max(8, round(cut.shape[1] * scale)), TILE_HEIGHT),
                                     interpolation=cv2.INTER_LINEAR))
        pasted.append(images)
    width = max(sum(i.shape[1] for i in row) + GAP * (len(row) - 1) for row in pasted) + 2 * MARGIN
    height = len(pasted) * TILE_HEIGHT + (len(pasted) - 1) * ROW_GAP + 2 * MARGIN
    cloth = np.array([70, 110, 40], np.float32) + rng.normal(0, 6, (height, width, 3))
    canvas = np.clip(cloth, 0, 255).astype(np.uint8)
    y = MARGIN
    boxes = []
    for row in pasted:
        x = MARGIN
        for image in row:
            canvas[y:y + TILE_HEIGHT, x:x + image.shape[1]] = image
            boxes.append(((x + image.shape[1] / 2) / width, (y + TILE_HEIGHT / 2) / height, image.shape[1] / width,
                          TILE_HEIGHT / height))
            x += image.shape[1] + GAP
        y += TILE_HEIGHT + ROW_GAP
    return canvas, boxes


def artwork_curve(shipped: TileClassifier, data: Path, artwork: Path, photos: list[int], per_tile_test: int,
                  recolour: bool = False, reader: TileClassifier | None = None) -> dict:
    """One artwork set (gleitz, 42 faces) rendered as tiles in photo-like scenes (`training.renders`): k renders a
    tile calibrate (their crops go straight in as calibration tiles), `per_tile_test` other renders a tile test.
    `recolour`: red and blue swapped in every render, calibration and test alike: one set, test and calibration
    photos of the same tiles, in a look the model reads worse (the situation of the issue's private set)."""
    from fanscan.training.augment import patch_to_input
    from fanscan.training.faces import _gleitz_faces
    from fanscan.training.real_data import STORE_SPEC
    from fanscan.training.renders import Renderer, background_photos

    from fanscan.calibration.sources import context_tile

    faces: dict[str, list] = {}
    for face in _gleitz_faces(artwork / "gleitz-mit"):
        faces.setdefault(face.tile, []).append(face)
    kinds = [t for row in LAYOUT for t in row]
    renderer = Renderer(faces, [], background_photos(data, 30, 7), seed=11)

    def render(tile: str) -> np.ndarray:
        patch = renderer.render(tile)
        return patch[..., ::-1].copy() if recolour else patch

    test = [(t, render(t)) for t in kinds for _ in range(per_tile_test)]
    crops = np.stack([patch_to_input(p, shipped.crop_spec) for _, p in test])
    truth = [t for t, _ in test]
    # The tile in a stored patch: centred, its height fills the patch less the 35 % margins; width ~0.75 of that.
    tile_h = STORE_SPEC.height / (1 + 2 * STORE_SPEC.pad)
    tile_w = 0.75 * tile_h
    cx, cy = STORE_SPEC.width / 2, STORE_SPEC.height / 2
    quad = np.array([[cx - tile_w / 2, cy - tile_h / 2], [cx + tile_w / 2, cy - tile_h / 2],
                     [cx + tile_w / 2, cy + tile_h / 2], [cx - tile_w / 2, cy + tile_h / 2]], np.float32)
    out = {"artwork": "gleitz-mit (MIT): one consistent art style, rendered by training.renders; the shipped "
                      "classifier was trained on renders of it among others",
           "test_crops": len(test), "without_profile": accuracy(reader or shipped, crops, truth), "curve": []}
    for k in photos:
        calibration = [context_tile(render(t), quad, t, f"render-{j}") for j in range(k) for t in kinds]
        started = time.perf_counter()
        fitted = fit_profile(shipped, calibration, FitSettings())
        seconds = time.perf_counter() - started
        point = {"photos_per_tile": k, "build_seconds": round(seconds, 1), "leave_one_out": fitted["leave_one_out"],
                 "penalty": fitted["penalty"], "crop_zoom": fitted["crop_zoom"],
                 "with_profile": accuracy(profile_of(shipped, fitted, f"artwork-{k}"), crops, truth)}
        out["curve"].append(point)
        print(f"artwork{' recoloured' if recolour else ''}, {k} a tile: {point}", flush=True)
    return out


def accuracy(classifier: TileClassifier, crops: np.ndarray, truth: list[str]) -> dict:
    predicted = [classifier.classes[i] for i in classifier.probabilities(crops).argmax(axis=1)]
    right = np.array([p == t for p, t in zip(predicted, truth, strict=True)])
    out = {"top1": round(float(right.mean()), 4)}
    for name in GROUPS:
        mask = np.array([group_of(t) == name for t in truth])
        out[name] = round(float(right[mask].mean()), 4) if mask.any() else None
    return out


def source_curve(shipped: TileClassifier, candidates: dict[str, list[tuple]], crops: np.ndarray, truth: list[str],
                 ks: list[int], recolour: bool = False, keep_photos: Path | None = None) -> list[dict]:
    """Construction 1 (the module doc) for each k: composite, calibrate, read the test crops with the profile."""
    kinds = [t for row in LAYOUT for t in row]
    curve = []
    for k in ks:
        chosen = {t: picks(candidates[t], k) for t in kinds}
        with tempfile.TemporaryDirectory() as folder:
            photos = []
            yolo = Path(folder) / "yolo"
            (yolo / "images").mkdir(parents=True)
            (yolo / "labels").mkdir()
            (yolo / "data.yaml").write_text(f"names: {kinds}\n", encoding="utf-8")
            for j in range(k):
                rows = [[chosen[t][j] for t in row] for row in LAYOUT]
                path = yolo / "images" / f"layout_{k}_{j + 1}.png"
                image, boxes = composite(rows, seed=100 * k + j)
                if recolour:
                    image = image[..., ::-1].copy()
                cv2.imwrite(str(path), image)
                (yolo / "labels" / f"{path.stem}.txt").write_text(
                    "".join(f"{i} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for i, (cx, cy, w, h) in enumerate(boxes)),
                    encoding="utf-8")
                photos.append(path)
                if keep_photos:
                    keep_photos.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(keep_photos / path.name), image)
            started = time.perf_counter()
            # The photo path (detector, rows, labels by position); where the detector does not find the 42 tiles
            # of a composite (its crops carry slivers of their neighbours), the composites' own boxes are used.
            try:
                tiles, read_as = read_sources(photos, default_detector, shipped), "laid-out photos (detector)"
            except FanscanError as error:
                tiles, read_as = read_sources([yolo], default_detector, shipped), f"YOLO labels ({error})"
            fitted = fit_profile(shipped, tiles, FitSettings())
            build_seconds = time.perf_counter() - started  # reading the photos, views, cross-validation and fit
            loo = fitted["leave_one_out"]
        calibrated = profile_of(shipped, fitted, f"curve-{k}")
        point = {"photos_per_tile": k, "calibration_tiles": len(tiles), "read_as": read_as,
                 "distinct_calibration_sources": len({c[2] for t in kinds for c in chosen[t]}),
                 "build_seconds": round(build_seconds, 1), "leave_one_out": loo, "penalty": fitted["penalty"],
                 "crop_zoom": fitted["crop_zoom"], "with_profile": accuracy(calibrated, crops, truth)}
        curve.append(point)
        print(f"{'recoloured, ' if recolour else ''}{k} photo(s) a tile: with the profile {point['with_profile']}, "
              f"built in {point['build_seconds']} s; cross-validation {loo}", flush=True)
    return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the train split (YOLO layout)")
    parser.add_argument("--photos", default="1,2,4", help="calibration photos a tile to try (default 1,2,4)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "calibration_curve.json")
    parser.add_argument("--artwork", type=Path, default=ROOT.parent / "shared" / "artwork")
    parser.add_argument("--keep-photos", type=Path, help="also write the composited layout photos here")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"what to measure (default all: {','.join(PARTS)}); the others are left out of the JSON")
    parser.add_argument("--classifier", type=Path, default=PROFILE_MODEL,
                        help="the classifier file to calibrate (default: the one profiles are built on); "
                        "its 'embedding' output is what a profile learns on")
    parser.add_argument("--reader", type=Path, default=DEFAULT_MODEL,
                        help="the classifier that reads without a profile (the 'no profile' figures; default: the "
                        "shipped one)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data",
                        help="the shared data folder with riichi-table-leomiura and hk-crops-justinchan")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"--parts: unknown {', '.join(unknown)} (choose from {', '.join(PARTS)})")
    try:
        shipped = TileClassifier(args.classifier)
        reader = TileClassifier(args.reader)
    except FanscanError as error:
        parser.error(f"--classifier / --reader: {error}")

    def named(path: Path) -> str:
        return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    ks = [int(v) for v in args.photos.split(",")]
    result: dict = {"created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "onnxruntime_threads": 1,
                    "openblas_threads": os.environ["OPENBLAS_NUM_THREADS"], "parts": parts,
                    "classifier": named(shipped.path), "reader_without_profile": named(reader.path)}
    if "riichi" in parts:
        result["riichi_table_leomiura"] = riichi_curve(shipped, args.shared / "riichi-table-leomiura", ks,
                                                       FitSettings(), reader)
    if "hk" in parts:
        result["hk_crops_justinchan"] = hk_curve(shipped, args.shared / "hk-crops-justinchan", ks, FitSettings(),
                                                 reader)
    if "dev" in parts or "recoloured" in parts:
        result |= dev_curves(shipped, args, ks, "recoloured" in parts, "dev" in parts, reader)
    if "sessions" in parts:
        result["dev_sessions"] = session_curves(shipped, args.data, ks, FitSettings(), reader)
    if "artwork" in parts:
        result["artwork_set"] = artwork_curve(shipped, args.data, args.artwork, ks, per_tile_test=12, reader=reader)
        result["artwork_set_recoloured"] = artwork_curve(shipped, args.data, args.artwork, ks, per_tile_test=12,
                                                         recolour=True, reader=reader)
    write_json(args.json, result)
    print(f"json: {args.json}")
    return 0


def dev_curves(shipped: TileClassifier, args: argparse.Namespace, ks: list[int], recoloured: bool,
               as_they_are: bool, reader: TileClassifier | None = None) -> dict:
    """Construction 1 (the module doc), as the photos are and recoloured; "without a profile" read by `reader`."""
    reader = reader or shipped
    candidates, test = collect(args.data)
    crops = np.stack([crop_box(cv2.imread(str(p), cv2.IMREAD_COLOR), box, shipped.crop_spec) for p, box, _ in test])
    truth = [t for _, _, t in test]
    result = {"data": str(args.data), "construction": __doc__.split("\n\n")[2].replace("\n", " "),
              "test_crops": len(test),
              "calibration_candidates_per_kind": {k: [len(v), sum(c[3] for c in v)]
                                                  for k, v in sorted(candidates.items())},
              "without_profile": accuracy(reader, crops, truth)}
    print(f"test: {len(test)} crops; without a profile {result['without_profile']}", flush=True)
    if as_they_are:
        result["curve"] = source_curve(shipped, candidates, crops, truth, ks, keep_photos=args.keep_photos)
    if not recoloured:
        return result
    recoloured_crops = crops[..., ::-1].copy()
    result["recoloured"] = {
        "construction": "the same, with red and blue swapped in every calibration photo and test crop: a palette "
                        "the training photos do not show (red characters turn blue, blue numerals red), as another "
                        "maker's",
        "without_profile": accuracy(reader, recoloured_crops, truth),
        "curve": source_curve(shipped, candidates, recoloured_crops, truth, ks, recolour=True)}
    print(f"recoloured: without a profile {result['recoloured']['without_profile']}", flush=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
