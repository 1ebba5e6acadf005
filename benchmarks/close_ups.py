"""Close-ups built from labelled photos: one to a few tiles cut out and laid on a paper-like sheet, framed as a phone
camera frames them (4:3 or 3:4, the tiles 20-70 % of the long side). Issue 18: another maker's close-ups (one large
tile on white paper) are where the scale pass and the squeezed-photo search threw tiles away, and the private photos
that showed it are not ours; this is the nearest we can build.

    python benchmarks/close_ups.py --out /tmp/close-ups        # then: evaluate.py --data /tmp/close-ups
    (evaluate.py --all builds them itself, in a temporary folder)

Sources (all from ../shared/data, development only, never trained on):
- `riichi-table-leomiura`: runs of 1-4 neighbouring tiles of a frame, the frame first widened 1.5x (its export
  squeezed a wide camera frame into a square: SOURCE.md), so that the tiles have their own shape back;
- `hk-crops-justinchan`: each crop is one tile, laid alone on the sheet;
- the dev split of `chinese-mahjong-v4/train` (the familiar style): runs of 1-4 tiles of its photos with published
  tight labels (the export's turned copies are skipped: their boxes are loose).

A run is kept only when no other labelled tile lies partly inside its cut (a tile cut in half would be judged
either way). Everything is drawn from one seeded generator: the same folder on every run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision import splits
from fanscan.vision.yolo_data import LabelledImage, find_data_yaml, iter_split, read_class_names
from results_file import ROOT

SHARED_DATA = ROOT.parent / "shared" / "data"
SEED = 18
CAMERA_SIDE = 1024  # the built photo's long side (the pipeline works at about this size on a phone's photo)
TILES_SHARE = (0.2, 0.7)  # the cut's long side over the photo's long side
MARGIN = 0.06  # the cut reaches this share of a tile's size beyond the run's boxes
PARTLY_INSIDE = (0.05, 0.6)  # another tile this share inside the cut is cut through: the run is not used
LEOMIURA_WIDEN = 1.5  # SOURCE.md: tiles look about 1.5x narrower than they are
RUN_LENGTHS = (1, 1, 2, 3, 4)  # how many tiles a run has, drawn evenly from this
RUNS_PER_PHOTO = 2
DEV_PHOTOS = 40  # dev photos used (those with tight labels, in name order)
SOURCES = ("riichi-table-leomiura", "hk-crops-justinchan", "chinese-mahjong-v4/train")  # under the shared data


@dataclass(frozen=True)
class Cut:
    """Tiles cut out of a labelled photo: the pixels and the tiles' boxes (pixels of the cut) with class indices."""

    pixels: np.ndarray
    boxes: np.ndarray  # (n, 4) x0, y0, x1, y1
    classes: list[int]


def pixel_boxes(item: LabelledImage, width: int, height: int) -> np.ndarray:
    return np.array([b.to_pixels(width, height) for b in item.boxes], np.float64).reshape(-1, 4)


def runs_of(boxes: np.ndarray, rng: np.random.Generator) -> Iterator[list[int]]:
    """Runs of neighbouring boxes: a random box and the boxes nearest its centre, RUN_LENGTHS long."""
    if not len(boxes):
        return
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    for start in rng.permutation(len(boxes)):
        length = int(rng.choice(RUN_LENGTHS))
        order = np.argsort(np.linalg.norm(centres - centres[start], axis=1))
        yield [int(i) for i in order[:length]]


def cut_run(image: np.ndarray, boxes: np.ndarray, classes: list[int], run: list[int]) -> Cut | None:
    """The run's tiles cut out with a margin, or None when another tile lies partly inside the cut."""
    height, width = image.shape[:2]
    chosen = boxes[run]
    size = float(np.median(np.maximum(chosen[:, 2] - chosen[:, 0], chosen[:, 3] - chosen[:, 1])))
    x0, y0 = np.floor(chosen[:, :2].min(axis=0) - MARGIN * size).astype(int)
    x1, y1 = np.ceil(chosen[:, 2:].max(axis=0) + MARGIN * size).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    kept = []
    for i, (bx0, by0, bx1, by1) in enumerate(boxes):
        inside = max(0.0, min(bx1, x1) - max(bx0, x0)) * max(0.0, min(by1, y1) - max(by0, y0))
        share = inside / max((bx1 - bx0) * (by1 - by0), 1e-9)
        if PARTLY_INSIDE[0] < share < PARTLY_INSIDE[1] or (i in run and share < PARTLY_INSIDE[1]):
            return None
        if share >= PARTLY_INSIDE[1]:
            kept.append(i)
    local = np.clip(boxes[kept] - [x0, y0, x0, y0], 0, [x1 - x0, y1 - y0, x1 - x0, y1 - y0])
    return Cut(image[y0:y1, x0:x1].copy(), local, [classes[i] for i in kept])


def paper_sheet(height: int, width: int, rng: np.random.Generator) -> np.ndarray:
    """A white-to-cream sheet lit unevenly (a gradient across it), with a little sensor noise."""
    base = np.array([rng.uniform(215, 250)] * 3) - [rng.uniform(0, 18), rng.uniform(0, 8), 0]  # BGR: warm tint
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * xs / width + np.sin(angle) * ys / height) * rng.uniform(-25, 25)
    sheet = base[None, None, :] + ramp[..., None] + rng.normal(0, 2.5, (height, width, 1))
    return np.clip(sheet, 0, 255).astype(np.uint8)


def lay_on_paper(cut: Cut, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The cut scaled and placed on a camera-framed sheet with a soft shadow; its boxes in the photo's pixels."""
    portrait = cut.pixels.shape[0] > cut.pixels.shape[1]
    height, width = (CAMERA_SIDE, CAMERA_SIDE * 3 // 4) if portrait else (CAMERA_SIDE * 3 // 4, CAMERA_SIDE)
    share = rng.uniform(*TILES_SHARE)
    scale = share * max(height, width) / max(cut.pixels.shape[:2])
    scale = min(scale, 0.92 * width / cut.pixels.shape[1], 0.92 * height / cut.pixels.shape[0])
    ch, cw = max(1, round(cut.pixels.shape[0] * scale)), max(1, round(cut.pixels.shape[1] * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    tiles = cv2.resize(cut.pixels, (cw, ch), interpolation=interpolation)
    sheet = paper_sheet(height, width, rng)
    x0, y0 = int(rng.integers(0, width - cw + 1)), int(rng.integers(0, height - ch + 1))
    shadow = np.zeros((height, width), np.float32)
    offset = max(2, round(0.03 * min(cw, ch)))
    shadow[min(height - 1, y0 + offset):y0 + ch + offset, min(width - 1, x0 + offset):x0 + cw + offset] = 1.0
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.04 * min(cw, ch)))
    sheet = (sheet * (1 - 0.35 * shadow[..., None])).astype(np.uint8)
    sheet[y0:y0 + ch, x0:x0 + cw] = tiles
    boxes = cut.boxes * scale + [x0, y0, x0, y0]
    return sheet, boxes


def leomiura_cuts(folder: Path, rng: np.random.Generator) -> Iterator[Cut]:
    for item in iter_split(folder):
        image = cv2.imread(str(item.image_path))
        image = cv2.resize(image, None, fx=LEOMIURA_WIDEN, fy=1.0, interpolation=cv2.INTER_CUBIC)
        yield from _runs_of_photo(image, item, rng)


def _runs_of_photo(image: np.ndarray, item: LabelledImage, rng: np.random.Generator) -> Iterator[Cut]:
    boxes = pixel_boxes(item, image.shape[1], image.shape[0])
    classes = [b.class_index for b in item.boxes]
    made = 0
    for run in runs_of(boxes, rng):
        cut = cut_run(image, boxes, classes, run)
        if cut is not None and cut.classes:
            yield cut
            made += 1
            if made == RUNS_PER_PHOTO:
                return


def crop_cuts(folder: Path) -> Iterator[Cut]:
    """Each crop of a one-tile folder as it is (its label covers it whole)."""
    for item in iter_split(folder):
        image = cv2.imread(str(item.image_path))
        height, width = image.shape[:2]
        yield Cut(image, pixel_boxes(item, width, height), [b.class_index for b in item.boxes])


def dev_cuts(folder: Path, rng: np.random.Generator) -> Iterator[Cut]:
    items = splits.select(list(iter_split(folder)), splits.DEV, name_of=lambda item: item.image_path.name)
    tight = [item for item in items if _tight(item)][:DEV_PHOTOS]
    for item in tight:
        yield from _runs_of_photo(cv2.imread(str(item.image_path)), item, rng)


def _tight(item: LabelledImage) -> bool:
    """Labels as published, not loose boxes around an export's turned copy: polygon labels, or a photo whose corners
    are not flat filled (`fanscan.training.label_repair.fill_colour`)."""
    from fanscan.training.label_repair import fill_colour

    return any(b.from_polygon for b in item.boxes) or fill_colour(cv2.imread(str(item.image_path))) is None


def build(out: Path, data_root: Path = SHARED_DATA) -> dict:
    """The close-ups under `out` (images/, labels/, data.yaml; `out` is emptied first); counts per source."""
    sources = {
        "riichi-table-leomiura": lambda rng: leomiura_cuts(data_root / "riichi-table-leomiura", rng),
        "hk-crops-justinchan": lambda rng: crop_cuts(data_root / "hk-crops-justinchan"),
        "chinese-mahjong-v4 dev": lambda rng: dev_cuts(data_root / "chinese-mahjong-v4" / "train", rng),
    }
    names = read_class_names(find_data_yaml(data_root / "chinese-mahjong-v4" / "train"))
    for folder in ("riichi-table-leomiura", "hk-crops-justinchan"):
        if read_class_names(find_data_yaml(data_root / folder)) != names:
            raise FanscanError(f"{data_root / folder}: class names differ from chinese-mahjong-v4's")
    start_folder(out, names)
    counts = {}
    for number, (source, cuts) in enumerate(sources.items()):
        rng = np.random.default_rng([SEED, number])
        photos = tiles = 0
        for cut in cuts(rng):
            photo, boxes = lay_on_paper(cut, rng)
            tiles += write_photo(out, f"{source.split()[0].split('-')[0]}_{photos:03d}", photo, boxes, cut.classes)
            photos += 1
        counts[source] = {"photos": photos, "tiles": tiles}
    return counts


def start_folder(out: Path, names: list[str]) -> None:
    """An empty YOLO folder at `out` (emptied first when it exists) whose data.yaml names `names`."""
    if out.exists():
        shutil.rmtree(out)
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    (out / "data.yaml").write_text(f"nc: {len(names)}\nnames: {names!r}\n", encoding="utf-8")


def write_photo(out: Path, stem: str, photo: np.ndarray, boxes: np.ndarray, classes: list[int]) -> int:
    """A built photo and its labels (pixel boxes x0, y0, x1, y1 with class indices) into the folder; the label count."""
    cv2.imwrite(str(out / "images" / f"{stem}.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
    height, width = photo.shape[:2]
    lines = [f"{c} {(b[0] + b[2]) / 2 / width:.6f} {(b[1] + b[3]) / 2 / height:.6f} "
             f"{(b[2] - b[0]) / width:.6f} {(b[3] - b[1]) / height:.6f}" for c, b in zip(classes, boxes, strict=True)]
    (out / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to build (emptied first)")
    parser.add_argument("--shared-data", type=Path, default=SHARED_DATA, help="the shared data folder")
    args = parser.parse_args(argv)
    return run_build(lambda: build(args.out, args.shared_data))


def run_build(build_folder: Callable[[], dict[str, dict]]) -> int:
    """A builder's command: the folder built, one line per source ({source: {photos, tiles}}), or a one-line error."""
    try:
        counts = build_folder()
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for source, count in counts.items():
        print(f"{source}: {count['photos']} photos, {count['tiles']} tiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
