"""Tiles large in the frame: close-ups built from the development split, measured through the product's `Pipeline`.

    python benchmarks/eval_large_tiles.py --data ../shared/data/chinese-mahjong-v4/train \
        --json benchmarks/results/large_tiles_dev.json            # add --no-scale-pass for the pipeline without it

Why: the private "another maker's set" (phone photos, 1-9 tiles, often large in the frame, white background) gets
recall 0.91 / precision 0.71 (issue 9), while the training photos show tiles small on a table. That set stays private,
so this script builds a stand-in from photos of the DEV split only (`fanscan.vision.splits`; never `test/`):

- `crop`: a window of the photo around a random labelled tile, cut so that the tile's long side is a fraction `s`
  of the window's long side (s uniform in 0.15-0.70), 4:3 landscape or portrait at random, resized to 640 px on its
  long side. Labelled tiles at least `MIN_VISIBLE` inside the window are the truth (their box clipped to it); tiles
  cut by its edge further are ignored (a detection on them counts neither way); windows with no tile or more than
  `MAX_TILES` are drawn again.
- `white`: the same tile and its k - 1 nearest labelled neighbours (k uniform in 1-9), each its labelled box's
  pixels, pasted at their own relative places and enlarged the same way onto a plain near-white background (a
  little tint, a light gradient and sensor noise); the pasted boxes are the truth exactly. Neighbours that would
  leave the frame are left out (so k can end smaller).

The export-turned copies of the train folder are turned back first with repaired labels (`evaluate.export_repair`,
as `evaluate.py --turned-copies` judges them); their untrusted tiles are painted grey there, so a `crop` window
showing more than 1 % of that grey is drawn again and only trusted tiles are pasted. Photos whose labels are loose
(two boxes overlapping by IoU over `MAX_LABEL_OVERLAP`: a repair that left boxes too big) or squeezed (`evaluate.py`'s
`squeezed photos`: enlarging them would show stretched tiles, another problem) are not used. Every draw comes from one
`numpy` generator with a fixed seed (`--seed`), so the same cases come out on every run.

Measures, over all cases and per size bucket (a case's bucket: its median labelled long side over the frame's long
side): `recall` (labelled tiles matched by any detection, IoU >= 0.5, greedy best score first), `precision` (matched
/ detections the product keeps, i.e. not read `none`), `end_to_end_accuracy` (found by a kept detection and read
right by the classifier's top-1 / labelled), `fragments` (unmatched kept detections lying mostly inside one labelled
tile: a tile split into several boxes), `missed_tiles`, and how often the pipeline's scale pass fired.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np
from evaluate import IOU, SQUEEZED, export_repair, photo_group, select_items, top_reading
from fanscan.scoring.errors import FanscanError
from fanscan.vision import splits
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.detection_metrics import iou_matrix, match
from fanscan.vision.group import NONE
from fanscan.vision.letterbox import PAD_GREY
from fanscan.vision.load import load_image
from fanscan.vision.scale import inside_shares
from fanscan.vision.yolo_data import find_data_yaml, read_class_names
from results_file import shown_path, write_json

SIZE_RANGE = (0.15, 0.70)  # a tile's long side over the frame's long side
BUCKETS = ((0.0, 0.25), (0.25, 0.35), (0.35, 0.50), (0.50, 1.01))
FRAME_SIDE = 640  # long side of a built close-up, in pixels
MAX_TILES = 9
MIN_VISIBLE = 0.6  # share of a tile's box inside a crop window for it to count as a labelled tile there
MAX_LABEL_OVERLAP = 0.2  # a photo with two labelled boxes overlapping more (IoU) has loose labels: not used
MAX_PAINTED = 0.01  # share of painted-grey pixels (untrusted repaired tiles) a crop window may show
INSIDE_TILE = 0.7  # an unmatched detection with this share of its area inside one labelled tile is a fragment of it
DRAWS = 40  # attempts per case before giving up on the source photo
DEFAULT_COUNT, DEFAULT_SEED = 150, 9  # cases per variant and their seed (evaluate.py --all builds the same ones)
VARIANTS = ("crop", "white")


@dataclass
class Source:
    """A dev photo with trustworthy tight boxes (x0, y0, x1, y1 pixels) and their tile names."""

    name: str
    image: np.ndarray
    boxes: np.ndarray
    tiles: list[str]


@dataclass
class Case:
    """A built close-up: the image, the labelled boxes and tiles, and boxes to ignore (cut by the window edge)."""

    variant: str
    source: str
    image: np.ndarray
    boxes: np.ndarray
    tiles: list[str]
    ignored: np.ndarray

    @property
    def size(self) -> float:
        """Median labelled long side over the frame's long side."""
        sides = np.maximum(self.boxes[:, 2] - self.boxes[:, 0], self.boxes[:, 3] - self.boxes[:, 1])
        return float(np.median(sides)) / max(self.image.shape[:2])


@dataclass
class CaseResult:
    variant: str
    source: str
    size: float
    labelled: int
    detections: int = 0
    kept: int = 0
    matched_raw: int = 0
    matched: int = 0
    read_right: int = 0
    fragments: int = 0
    scale_pass: bool = False
    ms: float = 0.0
    misses: list[list[float]] = field(default_factory=list)
    false_positives: list[list[float]] = field(default_factory=list)


def load_sources(data: Path) -> list[Source]:
    """The dev photos with at least one trustworthy box, export-turned copies turned back (see the docstring)."""
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    sources = []
    for item in select_items(data, splits.DEV):
        image = load_image(item.image_path).image
        height, width = image.shape[:2]
        boxes = np.array([b.to_pixels(width, height) for b in item.boxes], np.float64).reshape(-1, 4)
        tiles = [table[names[b.class_index]] for b in item.boxes]
        repaired = export_repair(image, item, boxes)
        if repaired is False:
            continue
        if repaired is not None:
            image, kept, boxes = repaired
            tiles = [tiles[i] for i in kept]
        inside = (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= image.shape[1]) & \
                 (boxes[:, 3] <= image.shape[0]) & (boxes[:, 2] - boxes[:, 0] >= 4) & (boxes[:, 3] - boxes[:, 1] >= 4)
        overlap = iou_matrix(boxes, boxes) - np.eye(len(boxes))
        if inside.any() and photo_group(boxes) != SQUEEZED and overlap.max() <= MAX_LABEL_OVERLAP:
            sources.append(Source(item.image_path.name, image, boxes[inside],
                                  [t for t, ok in zip(tiles, inside, strict=True) if ok]))
    return sources


def frame_shape(rng: np.random.Generator, long_side: float) -> tuple[float, float]:
    """(width, height) of a 4:3 frame, landscape or portrait at random."""
    return (long_side, long_side * 0.75) if rng.random() < 0.5 else (long_side * 0.75, long_side)


def crop_case(rng: np.random.Generator, source: Source) -> Case | None:
    """A window of the photo around one tile, enlarged (see the module docstring); None when no draw fits."""
    height, width = source.image.shape[:2]
    for _ in range(DRAWS):
        anchor = source.boxes[rng.integers(len(source.boxes))]
        size = rng.uniform(*SIZE_RANGE)
        frame_w, frame_h = frame_shape(rng, max(anchor[2] - anchor[0], anchor[3] - anchor[1]) / size)
        if frame_w > width or frame_h > height:
            continue
        # The anchor lies wholly inside the window, anywhere; the window lies inside the photo.
        x0 = rng.uniform(max(0.0, anchor[2] - frame_w), min(anchor[0], width - frame_w))
        y0 = rng.uniform(max(0.0, anchor[3] - frame_h), min(anchor[1], height - frame_h))
        if not (0 <= x0 <= width - frame_w and 0 <= y0 <= height - frame_h):
            continue
        window = np.array([x0, y0, x0 + frame_w, y0 + frame_h])
        clipped = np.concatenate([np.maximum(source.boxes[:, :2], window[:2]),
                                  np.minimum(source.boxes[:, 2:], window[2:])], axis=1)
        area = np.prod(source.boxes[:, 2:] - source.boxes[:, :2], axis=1)
        visible = np.prod(np.clip(clipped[:, 2:] - clipped[:, :2], 0, None), axis=1) / area
        counted = visible >= MIN_VISIBLE
        if not 1 <= counted.sum() <= MAX_TILES:
            continue
        ix0, iy0 = round(x0), round(y0)
        ix1, iy1 = ix0 + max(1, round(frame_w)), iy0 + max(1, round(frame_h))
        patch = source.image[iy0:iy1, ix0:ix1]
        if np.all(patch == PAD_GREY, axis=2).mean() > MAX_PAINTED:
            continue
        zoom = FRAME_SIDE / max(patch.shape[:2])
        image = cv2.resize(patch, (round(patch.shape[1] * zoom), round(patch.shape[0] * zoom)),
                           interpolation=cv2.INTER_CUBIC)
        offset = np.array([ix0, iy0, ix0, iy0], np.float64)
        ignored = (visible > 0) & ~counted
        return Case("crop", source.name, image, (clipped[counted] - offset) * zoom,
                    [t for t, ok in zip(source.tiles, counted, strict=True) if ok], (clipped[ignored] - offset) * zoom)
    return None


def white_background(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A plain near-white sheet: a slight tint, a light gradient across it, sensor noise."""
    base = rng.uniform(228, 250) + rng.uniform(-6, 6, 3)
    angle = rng.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    ramp = ((xs / width - 0.5) * np.cos(angle) + (ys / height - 0.5) * np.sin(angle)) * rng.uniform(0, 24)
    sheet = base[None, None, :] + ramp[..., None] + rng.normal(0, 2.0, (height, width, 3))
    return np.clip(sheet, 0, 255).astype(np.uint8)


def white_case(rng: np.random.Generator, source: Source) -> Case | None:
    """A tile and its nearest neighbours pasted onto a near-white sheet, enlarged (see the module docstring)."""
    anchor_index = int(rng.integers(len(source.boxes)))
    anchor = source.boxes[anchor_index]
    wanted = int(rng.integers(1, MAX_TILES + 1))
    size = rng.uniform(*SIZE_RANGE)
    frame_w, frame_h = (round(v) for v in frame_shape(rng, FRAME_SIDE))
    zoom = size * FRAME_SIDE / max(anchor[2] - anchor[0], anchor[3] - anchor[1])
    centres = (source.boxes[:, :2] + source.boxes[:, 2:]) / 2
    order = np.argsort(np.linalg.norm(centres - centres[anchor_index], axis=1), kind="stable")[:wanted]
    # Drop the farthest neighbours until the group, enlarged, fits the frame with a small margin.
    margin = 0.02 * FRAME_SIDE
    while True:
        group = source.boxes[order]
        extent = (group[:, 2:].max(axis=0) - group[:, :2].min(axis=0)) * zoom
        if extent[0] <= frame_w - 2 * margin and extent[1] <= frame_h - 2 * margin:
            break
        if len(order) == 1:
            return None
        order = order[:-1]
    sheet = white_background(rng, frame_w, frame_h)
    shift = np.array([rng.uniform(margin, frame_w - margin - extent[0]),
                      rng.uniform(margin, frame_h - margin - extent[1])]) - group[:, :2].min(axis=0) * zoom
    boxes = []
    for box in group:
        x0, y0, x1, y1 = (round(v) for v in box)
        patch = source.image[y0:y1, x0:x1]
        px0, py0 = (round(v) for v in box[:2] * zoom + shift)
        pw, ph = max(1, round((x1 - x0) * zoom)), max(1, round((y1 - y0) * zoom))
        pw, ph = min(pw, frame_w - px0), min(ph, frame_h - py0)
        sheet[py0:py0 + ph, px0:px0 + pw] = cv2.resize(patch, (pw, ph), interpolation=cv2.INTER_CUBIC)
        boxes.append([px0, py0, px0 + pw, py0 + ph])
    return Case("white", source.name, sheet, np.array(boxes, np.float64),
                [source.tiles[i] for i in order], np.zeros((0, 4)))


def build_cases(sources: list[Source], count: int, seed: int) -> list[Case]:
    """`count` cases of each variant, from sources drawn with one seeded generator (same cases on every run)."""
    rng = np.random.default_rng(seed)
    cases = []
    for _variant, build in (("crop", crop_case), ("white", white_case)):
        made = 0
        while made < count:
            case = build(rng, sources[int(rng.integers(len(sources)))])
            if case is not None:
                cases.append(case)
                made += 1
    return cases


def fragment_count(boxes: np.ndarray, truth: np.ndarray) -> int:
    """Boxes lying mostly (`INSIDE_TILE` of their area) inside one labelled tile."""
    if len(boxes) == 0 or len(truth) == 0:
        return 0
    return int((inside_shares(boxes, truth).max(axis=1) >= INSIDE_TILE).sum())


def evaluate_case(pipeline, case: Case) -> CaseResult:
    started = time.perf_counter()
    proposal = pipeline.propose(case.image)
    ms = (time.perf_counter() - started) * 1000
    tiles = sorted(proposal.tiles, key=lambda t: -t.detection_score)
    if len(case.ignored) and tiles:
        # A detection on a tile the window cuts counts neither way.
        overlap = iou_matrix(np.array([t.box for t in tiles]), case.ignored).max(axis=1)
        tiles = [t for t, o in zip(tiles, overlap, strict=True) if o < IOU]
    kept = [t for t in tiles if t.tile != NONE]
    result = CaseResult(case.variant, case.source, round(case.size, 4), len(case.boxes),
                        scale_pass="scale_pass" in proposal.timings_ms, ms=round(ms, 1))
    result.detections, result.kept = len(tiles), len(kept)
    result.matched_raw = len(match(np.array([t.box for t in tiles]).reshape(-1, 4), case.boxes, IOU))
    pairs = match(np.array([t.box for t in kept]).reshape(-1, 4), case.boxes, IOU)
    result.matched = len(pairs)
    result.read_right = sum(top_reading(kept[p])[0] == case.tiles[t] for p, t in pairs)
    matched_kept, matched_truth = {p for p, _ in pairs}, {t for _, t in pairs}
    unmatched = np.array([kept[p].box for p in range(len(kept)) if p not in matched_kept]).reshape(-1, 4)
    result.fragments = fragment_count(unmatched, case.boxes)
    result.false_positives = [[round(v, 1) for v in box] for box in unmatched]
    result.misses = [[round(v, 1) for v in case.boxes[t]] for t in range(len(case.boxes)) if t not in matched_truth]
    return result


def summarise(results: list[CaseResult]) -> dict:
    total = {key: sum(getattr(r, key) for r in results)
             for key in ("labelled", "detections", "kept", "matched_raw", "matched", "read_right", "fragments")}

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "cases": len(results),
        "labelled_tiles": total["labelled"],
        "detections_kept": total["kept"],
        "recall": ratio(total["matched_raw"], total["labelled"]),
        "precision": ratio(total["matched"], total["kept"]),
        "end_to_end_accuracy": ratio(total["read_right"], total["labelled"]),
        "missed_tiles": total["labelled"] - total["matched_raw"],
        "false_detections": total["kept"] - total["matched"],
        "fragments": total["fragments"],
        "scale_pass_fired": sum(r.scale_pass for r in results),
        "median_ms": round(statistics.median(r.ms for r in results), 1) if results else None,
    }


def bucket_name(low: float, high: float) -> str:
    return f"{low:.2f}-{min(high, 1.0):.2f}"


def report(results: list[CaseResult]) -> dict:
    out = {}
    for variant in ("all", *VARIANTS):
        chosen = [r for r in results if variant in ("all", r.variant)]
        out[variant] = {"all": summarise(chosen), "by_size": {
            bucket_name(low, high): summarise([r for r in chosen if low <= r.size < high]) for low, high in BUCKETS}}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the train folder (YOLO layout); its dev split only")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help=f"cases per variant (default {DEFAULT_COUNT})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-scale-pass", action="store_true", help="the pipeline without its scale pass (before)")
    parser.add_argument("--save-cases", type=Path, help="write the built images here (to look at them)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    from evaluate import make_pipeline

    try:
        sources = load_sources(args.data)
        cases = build_cases(sources, args.count, args.seed)
        pipeline = make_pipeline()
        pipeline.scale_pass = not args.no_scale_pass
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.save_cases:
        args.save_cases.mkdir(parents=True, exist_ok=True)
        for n, case in enumerate(cases):
            drawn = case.image.copy()
            for x0, y0, x1, y1 in case.boxes.astype(int):
                cv2.rectangle(drawn, (x0, y0), (x1, y1), (0, 200, 0), 2)
            cv2.imwrite(str(args.save_cases / f"{n:03d}_{case.variant}.jpg"), drawn)
    started = time.perf_counter()
    results = [evaluate_case(pipeline, case) for case in cases]
    result = {
        "data": shown_path(args.data),
        "split": splits.DEV,
        "source_photos": len(sources),
        "seed": args.seed,
        "cases_per_variant": args.count,
        "size_range": list(SIZE_RANGE),
        "frame_side": FRAME_SIDE,
        "scale_pass": not args.no_scale_pass,
        "iou_threshold": IOU,
        **report(results),
        "seconds": round(time.perf_counter() - started, 1),
        "per_case": [asdict(r) for r in results],
    }
    for variant in ("all", *VARIANTS):
        print(variant, result[variant]["all"])
        for name, measures in result[variant]["by_size"].items():
            print("   ", name, {k: measures[k] for k in ("cases", "recall", "precision", "end_to_end_accuracy",
                                                         "fragments", "scale_pass_fired")})
    if args.json:
        write_json(args.json, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
