"""Close-ups of rendered tiles: one to four large tiles of an art style the detector never saw, on a paper-like
sheet, framed as a phone camera frames them. Issue 18 asks for the passes' rules to be measured "on close-ups you build
from them and from the artwork"; `close_ups.py` builds the first kind from real photos, this the second.

    python benchmarks/artwork_close_ups.py --out /tmp/artwork-close-ups     # then: evaluate.py --data that folder
    (evaluate.py --all builds them itself, in a temporary folder: the row `artwork close-ups`)

Each photo is a run of 1-4 tiles side by side (`close_ups.RUN_LENGTHS`), each a face of `gleitz-mit`
(../shared/artwork, MIT: 42 faces with flowers and seasons) on an ivory body with its thickness showing on one side
(`fanscan.training.renders`), small gaps between them, drawn on a sheet as `close_ups.lay_on_paper` lays real tiles
(the run 20-70 % of the frame's long side, a soft shadow). The truth is each tile's whole visible extent (face and
side), what a person labelling the photo boxes. The detector was trained on real photos only (models/tile_detector.md),
so for detection this is a stranger's set; the classifier was trained on renders of these faces among others
(models/tile_classifier.md), so its figures here are not a stranger's. Everything is drawn from one seeded
generator: the same folder on every run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from close_ups import CAMERA_SIDE, RUN_LENGTHS, TILES_SHARE, paper_sheet, run_build, start_folder, write_photo
from fanscan.scoring.errors import FanscanError
from fanscan.vision.dataset_classes import CHINESE_MAHJONG_V4
from results_file import ROOT

ARTWORK = ROOT.parent / "shared" / "artwork"
FACES = "gleitz-mit"
SEED = 181
PHOTOS = 84  # two a kind, on average
TILE_ASPECT = 0.75  # width over height of a tile's face
GAP = (0.0, 0.12)  # the gap between neighbours, as a share of a tile's width


def tile_ids() -> list[str]:
    """The 42 tile ids, in the order of chinese-mahjong-v4's table (its class order is the folder's)."""
    return list(CHINESE_MAHJONG_V4.values())


def render_run(faces: dict, kinds: list[str], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A camera-framed photo of `kinds` side by side on a sheet, and their boxes (x0, y0, x1, y1) in its pixels."""
    from fanscan.training.renders import face_on_body, ivory_colour, paste_masked, tile_with_thickness

    tall = rng.random() < (0.5 if len(kinds) == 1 else 0.2)  # a single tile is framed upright as often as not
    frame_h, frame_w = (CAMERA_SIDE, CAMERA_SIDE * 3 // 4) if tall else (CAMERA_SIDE * 3 // 4, CAMERA_SIDE)
    gaps = rng.uniform(*GAP, len(kinds))
    run_w = len(kinds) + gaps[:-1].sum()  # in tile widths
    run_h = 1 / TILE_ASPECT
    share = rng.uniform(*TILES_SHARE)  # the run's long side over the frame's long side
    width = share * max(frame_w, frame_h) / max(run_w, run_h)
    width = int(min(width, 0.85 * frame_w / run_w, 0.85 * frame_h / run_h))
    height = round(width / TILE_ASPECT)
    ivory = ivory_colour(rng)
    back = np.array([40, 150, 60], float) + rng.normal(0, 20, 3)  # a green back layer, its edge seen as the side
    # Seen from above and a little to one side: the side shows along one or two edges, a few percent of the tile.
    depth = (int(rng.integers(-1, 2) * rng.uniform(0.02, 0.08) * width),
             int(rng.integers(-1, 2) * rng.uniform(0.02, 0.08) * height))
    sheet = paper_sheet(frame_h, frame_w, rng).astype(np.float32)
    span_w = int(run_w * width) + abs(depth[0]) * len(kinds)
    x = int(rng.integers(0, max(1, frame_w - span_w)))
    y = int(rng.integers(0, max(1, frame_h - height - abs(depth[1]))))
    shadow = np.zeros((frame_h, frame_w), np.float32)
    placed = []
    for kind, gap in zip(kinds, gaps, strict=True):
        choices = faces[kind]
        front = face_on_body(choices[int(rng.integers(len(choices)))], width, height, rng, ivory)
        image, mask, _ = tile_with_thickness(front, rng, back, depth)
        offset = max(2, round(0.03 * width))
        shadow_mask = np.zeros_like(shadow)
        paste_masked(shadow_mask[..., None], np.ones((*mask.shape, 1), np.float32), mask, x + offset, y + offset)
        shadow = np.maximum(shadow, shadow_mask)
        placed.append((image, mask, x, y))
        x += image.shape[1] + int(gap * width)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.04 * width))
    sheet *= 1 - 0.35 * shadow[..., None]
    boxes = []
    for image, mask, px, py in placed:
        paste_masked(sheet, image, mask, px, py)
        ys, xs = np.nonzero(mask)
        boxes.append([max(0, px + xs.min()), max(0, py + ys.min()), min(frame_w, px + xs.max() + 1),
                      min(frame_h, py + ys.max() + 1)])
    return np.clip(sheet, 0, 255).astype(np.uint8), np.array(boxes, np.float64)


def artwork_photos(artwork: Path, rng: np.random.Generator, photos: int = PHOTOS
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, list[str]]]:
    """Each built photo, its boxes and their tile ids."""
    from fanscan.training.faces import _gleitz_faces

    if not (artwork / FACES).is_dir():
        raise FanscanError(f"{artwork / FACES}: no such folder (the shared artwork's gleitz faces)")
    faces: dict[str, list] = {}
    for face in _gleitz_faces(artwork / FACES):
        faces.setdefault(face.tile, []).append(face)
    kinds = sorted(faces)
    if not kinds:
        raise FanscanError(f"{artwork / FACES}: no faces (expected gleitz's PNGs such as ball_1.png)")
    for _ in range(photos):
        length = int(rng.choice(RUN_LENGTHS))
        chosen = [str(k) for k in rng.choice(kinds, length)]
        yield (*render_run(faces, chosen, rng), chosen)


def build(out: Path, artwork: Path = ARTWORK, photos: int = PHOTOS) -> dict:
    """The close-ups under `out` (images/, labels/, data.yaml with fanscan's tile ids; `out` is emptied first)."""
    rng = np.random.default_rng(SEED)
    names = tile_ids()
    start_folder(out, names)
    count = tiles = 0
    for photo, boxes, chosen in artwork_photos(artwork, rng, photos):
        tiles += write_photo(out, f"artwork_{count:03d}", photo, boxes, [names.index(k) for k in chosen])
        count += 1
    return {"photos": count, "tiles": tiles}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to build (emptied first)")
    parser.add_argument("--artwork", type=Path, default=ARTWORK, help="the shared artwork folder")
    args = parser.parse_args(argv)
    return run_build(lambda: {FACES: build(args.out, args.artwork)})


if __name__ == "__main__":
    sys.exit(main())
