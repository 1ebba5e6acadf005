"""Training crops from labelled real photos (YOLO layout), kept with context so that train-time jitter can move them.

Every labelled box becomes a *patch*: `crop_quad` with the wide `STORE_SPEC` margin (the same geometry the
classifier input uses, just more photo around the tile), so that the train-time transform from a patch to a model
input is a plain similarity around the centre (see `augment.patch_to_input`). Nothing is stretched: the 640x640
photos are already stretched from the phone's aspect, and the crop keeps whatever aspect the box has.

Loose boxes: the upstream augmentation rotated and sheared three photos in four (their corners are filled black),
and the box of a rotated tile holds the tile plus neighbours and background — unlike the tight boxes of the test
photos and of a detector. In such a photo a box whose sides differ by less than 25 % is marked `loose` (a tile
turned by more than about 10 degrees; an upright tile's box is clearly taller than wide); training samples loose
patches rarely. Boxes over 3x longer than wide are skipped: some are labels cut by the photo's edge, some tiles of a
photo squeezed to 640x640 upstream (the crop gives those back a tile's shape, see `CropSpec.max_aspect`).
`none` patches are cut from the same photos away from every labelled box, and across the gap between two
neighbouring labelled tiles (half of each): what a loose detection shows when it is not one tile.

Each patch keeps its source photo (upstream file names are `<source>_jpg.rf.<hash>.jpg`, the augmented copies of one
source share `<source>`), so that validation holds out whole photo sessions (`fanscan.vision.splits`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from fanscan.training.classes import CLASS_INDEX, NONE
from fanscan.vision.crops import CropSpec, crop_quad, quad_from_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.splits import source_of
from fanscan.vision.yolo_data import LabelledImage, find_data_yaml, iter_split, read_class_names

# Patches are stored at 1.5x the model input with a 35 % margin: room for shifts, scale jitter and rotation.
STORE_SPEC = CropSpec(width=96, height=120, pad=0.35, border="replicate")
MAX_ASPECT = 3.0  # longer boxes: cut labels or squeezed photos (see the module doc)
MIN_SIDE_PX = 8.0
LOOSE_ASPECT = 1.25  # in a rotated photo, a box with sides closer than this is a turned tile's loose box


def is_rotated_photo(image: np.ndarray) -> bool:
    """True when a corner of the photo is black fill: the upstream augmentation rotated or sheared it."""
    grey = image.max(axis=2)
    corners = (grey[:8, :8], grey[:8, -8:], grey[-8:, :8], grey[-8:, -8:])
    return any(float(c.mean()) < 20 for c in corners)


def is_grey(image: np.ndarray) -> bool:
    """True when the photo's three channels are the same: a grey copy made by the dataset's augmentation."""
    return bool(np.abs(np.diff(image.astype(np.int16), axis=2)).mean() < 1)


@dataclass
class PatchSet:
    """Patches with their class index, source-photo group and whether the box was near square (turn ambiguous)."""

    patches: np.ndarray  # (N, 120, 96, 3) uint8 BGR
    labels: np.ndarray  # (N,) int64 class index into CLASSES
    groups: np.ndarray  # (N,) int64 index into `sources`; -1 for synthetic
    square: np.ndarray  # (N,) bool
    sources: list[str]
    loose: np.ndarray | None = None  # (N,) bool: box of a tile in a rotated photo (see module doc)

    def __post_init__(self) -> None:
        if self.loose is None:
            self.loose = np.zeros(len(self.labels), bool)

    @staticmethod
    def empty() -> PatchSet:
        return PatchSet(
            np.zeros((0, STORE_SPEC.height, STORE_SPEC.width, 3), np.uint8),
            np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool), [],
        )

    def __len__(self) -> int:
        return len(self.labels)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, patches=self.patches, labels=self.labels, groups=self.groups, square=self.square,
                 sources=np.array(self.sources, dtype=object), loose=self.loose)
        tmp.replace(path)

    @staticmethod
    def load(path: Path) -> PatchSet:
        data = np.load(path, allow_pickle=True)
        return PatchSet(data["patches"], data["labels"], data["groups"], data["square"],
                        [str(s) for s in data["sources"]], data.get("loose", None))

    def subset(self, mask: np.ndarray) -> PatchSet:
        return PatchSet(self.patches[mask], self.labels[mask], self.groups[mask], self.square[mask], self.sources,
                        self.loose[mask])

    @staticmethod
    def concat(a: PatchSet, b: PatchSet) -> PatchSet:
        return PatchSet(np.concatenate([a.patches, b.patches]), np.concatenate([a.labels, b.labels]),
                        np.concatenate([a.groups, b.groups]), np.concatenate([a.square, b.square]),
                        a.sources or b.sources, np.concatenate([a.loose, b.loose]))


def _usable(x0: float, y0: float, x1: float, y1: float) -> bool:
    w, h = x1 - x0, y1 - y0
    return min(w, h) >= MIN_SIDE_PX and max(w, h) / min(w, h) <= MAX_ASPECT


def _overlap_fraction(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over the smaller of the two boxes' areas."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return iw * ih / max(smaller, 1e-6)


def _none_boxes(
    boxes: list[tuple[float, ...]], width: int, height: int, rng: np.random.Generator, count: int
) -> list[tuple[float, ...]]:
    """Boxes of tile size that show no labelled tile: random places, plus gaps between row neighbours."""
    found: list[tuple[float, ...]] = []
    sizes = [(b[2] - b[0], b[3] - b[1]) for b in boxes] or [(40.0, 52.0)]
    for _ in range(count * 8):
        if len(found) >= count:
            break
        w, h = sizes[rng.integers(len(sizes))]
        scale = rng.uniform(0.6, 1.6)
        w, h = w * scale, h * scale
        if w >= width - 2 or h >= height - 2:
            continue
        x0, y0 = rng.uniform(0, width - w), rng.uniform(0, height - h)
        cand = (x0, y0, x0 + w, y0 + h)
        if all(_overlap_fraction(cand, b) < 0.12 for b in boxes):
            found.append(cand)
    # Straddling two neighbours: same row, touching; the box sits half on each.
    gaps = []
    for a in boxes:
        for b in boxes:
            wa, ha = a[2] - a[0], a[3] - a[1]
            if a is b or not (0 < b[0] - a[0] < 1.4 * wa) or abs((a[1] + a[3]) / 2 - (b[1] + b[3]) / 2) > 0.25 * ha:
                continue
            shift = rng.uniform(0.42, 0.58) * wa
            gaps.append((a[0] + shift, a[1], a[2] + shift, a[3]))
    if gaps:
        picks = rng.choice(len(gaps), size=min(len(gaps), max(1, count // 2)), replace=False)
        found.extend(gaps[i] for i in picks)
    return found


def extract_split(
    split_dir: Path, none_per_image: int = 3, seed: int = 0, limit_images: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> PatchSet:
    """Patches of every labelled box of a YOLO split, plus `none` patches; groups are source photos."""
    split = Path(split_dir)
    names = read_class_names(find_data_yaml(split))
    table = guess_table(names)
    rng = np.random.default_rng(seed)
    patches, labels, groups, square, loose = [], [], [], [], []
    sources: dict[str, int] = {}
    images: list[LabelledImage] = list(iter_split(split))
    if limit_images is not None:
        images = images[:limit_images]
    for number, item in enumerate(images, start=1):
        image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        height, width = image.shape[:2]
        group = sources.setdefault(source_of(item.image_path), len(sources))
        rotated = is_rotated_photo(image)
        kept: list[tuple[float, ...]] = []
        for box in item.boxes:
            x0, y0, x1, y1 = box.to_pixels(width, height)
            x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)
            kept.append((x0, y0, x1, y1))
            if not _usable(x0, y0, x1, y1) or not 0 <= box.class_index < len(names):
                continue
            patches.append(crop_quad(image, quad_from_box(x0, y0, x1, y1), STORE_SPEC))
            labels.append(CLASS_INDEX[table[names[box.class_index]]])
            groups.append(group)
            w, h = x1 - x0, y1 - y0
            square.append(max(w, h) / min(w, h) < 1.2)
            loose.append(rotated and max(w, h) / min(w, h) < LOOSE_ASPECT)
        for x0, y0, x1, y1 in _none_boxes(kept, width, height, rng, none_per_image):
            if _usable(x0, y0, x1, y1):
                patches.append(crop_quad(image, quad_from_box(x0, y0, x1, y1), STORE_SPEC))
                labels.append(CLASS_INDEX[NONE])
                groups.append(group)
                square.append(False)
                loose.append(False)
        if progress is not None and (number % 100 == 0 or number == len(images)):
            progress(f"real crops: {number}/{len(images)} images, {len(patches)} patches")
    if not patches:
        return PatchSet.empty()
    return PatchSet(np.stack(patches), np.array(labels, np.int64), np.array(groups, np.int64),
                    np.array(square, bool), list(sources), np.array(loose, bool))
