"""Saving a confirmed photo as training data: the photo and its corrected labels appended to a YOLO dataset.

    save_labelled_photo("my-tiles", "hand.jpg", [("5m", quad), ...], (width, height)) -> the saved photo's path

The dataset is created on first use (`images/`, `labels/`, `data.yaml` with fanscan's names); a dataset that exists
keeps its own class names (Chinese Mahjong Detection v4's, say) and gets its labels in them. File names never
collide (`hand-2.jpg`). The label file is written before the photo, each whole (temporary file, then rename): a
photo never sits in the dataset without its labels, which would teach a model that its tiles are background.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from fanscan.labels.atomic import write_bytes, write_text
from fanscan.labels.classes import CLASS_NAMES, tile_for_label
from fanscan.labels.model import Box, checked_quad
from fanscan.labels.yolo import DATA_YAML, data_yaml_text, label_lines, stems_in, unique_stem
from fanscan.scoring.errors import FanscanError
from fanscan.vision.yolo_data import read_class_names

# What a confirmed proposal may call a tile besides a tile id: a tile face down, a detection that is no tile.
NOT_LABELS = ("back", "none")
_SUFFIX_OF_MAGIC = ((b"\xff\xd8\xff", ".jpg"), (b"\x89PNG\r\n\x1a\n", ".png"), (b"RIFF", ".webp"))


def _class_index(dataset: Path) -> dict[str, int]:
    """Tile id -> class index in the dataset's own names (made with fanscan's names if new)."""
    data_yaml = dataset / DATA_YAML
    if not data_yaml.exists():
        write_text(data_yaml, data_yaml_text())
        return {name: i for i, name in enumerate(CLASS_NAMES)}
    names = read_class_names(data_yaml)
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        tile = tile_for_label(name)
        if tile is not None:
            index.setdefault(tile, i)
    return index


def _tile_boxes(tiles: Iterable[tuple[str, Sequence[Sequence[float]]]], width: int, height: int) -> list[Box]:
    """The labels of the tiles that are tile ids, each checked (a known id, a real quad inside the photo); an empty
    list is refused too: a photo kept without labels teaches a model that its tiles are background."""
    boxes = []
    for number, (tile, quad) in enumerate(tiles, 1):
        if tile in NOT_LABELS:
            continue
        if tile not in CLASS_NAMES:
            raise FanscanError(f"tile {number}: {str(tile)[:20]!r} is not a tile id (1m..9m, 1p..9p, 1s..9s, "
                               "E S W N, C F P, a-h, back, none)")
        box = Box.from_quad(tile, checked_quad(quad, f"tile {number}"))
        x0, y0, x1, y1 = box.bounds()
        if x1 <= 0 or y1 <= 0 or x0 >= width or y0 >= height:
            raise FanscanError(f"tile {number}: its quad lies outside the {width}x{height} photo")
        boxes.append(box)
    if not boxes:
        raise FanscanError("no tile to label: every tile is back or none, so nothing is saved")
    return boxes


def save_labelled_photo(dataset_dir: str | Path, image: str | Path | bytes,
                        tiles: Iterable[tuple[str, Sequence[Sequence[float]]]],
                        image_size: tuple[int, int], name: str = "photo") -> Path:
    """Append a photo and its tiles to the YOLO dataset `dataset_dir`; returns where the photo was saved.

    `image`: the photo's path or its bytes (JPEG, PNG or WebP); `tiles`: (tile id, quad) pairs, the quad's four
    corners in the photo's pixels (EXIF orientation applied) of `image_size` (width, height); `name`: the file name
    to start from when `image` is bytes. Only tile ids are labels: `back` and `none` are left out."""
    dataset = Path(dataset_dir)
    if dataset.exists() and not dataset.is_dir():
        raise FanscanError(f"{dataset}: not a folder (--save-labels wants a dataset folder)")
    if isinstance(image, bytes):
        data, stem = image, Path(name).stem
    else:
        data, stem, name = Path(image).read_bytes(), Path(image).stem, Path(image).name
    # The photo's own type, not its name's: YOLO readers skip `images/x.txt`.
    suffix = next((s for magic, s in _SUFFIX_OF_MAGIC if data.startswith(magic)), None)
    if suffix is None:
        raise FanscanError(f"{name}: not a JPEG, PNG or WebP photo")
    width, height = image_size
    boxes = _tile_boxes(tiles, width, height)
    for sub in ("images", "labels"):
        (dataset / sub).mkdir(parents=True, exist_ok=True)
    class_index = _class_index(dataset)
    unknown = sorted({b.label for b in boxes if b.label not in class_index})
    if unknown:
        raise FanscanError(f"{dataset / DATA_YAML}: its class names have no {', '.join(unknown)}")
    clipped = [Box.from_bounds(b.label, max(0.0, x0), max(0.0, y0), min(width, x1), min(height, y1))
               for b in boxes for x0, y0, x1, y1 in [b.bounds()]]
    stem = unique_stem(stem, stems_in(dataset))
    write_text(dataset / "labels" / f"{stem}.txt", label_lines(clipped, width, height, class_index))
    return write_bytes(dataset / "images" / f"{stem}{suffix}", data)


def save_confirmed_photo(dataset_dir: str | Path | None, image: str, proposal, hand=None) -> Path | None:
    """`fanscan photo --save-labels`: save the photo with the proposal's tiles as confirmed. When the user typed a
    hand whose tiles differ from the proposal's, the photo does not say which tile is which: nothing is saved
    (a line on stderr says so)."""
    if dataset_dir is None:
        return None
    if hand is not None:
        from fanscan.scoring import parse_hand

        proposed = sorted(parse_hand(proposal.hand).all_tiles()) if proposal.hand.strip() else []
        if sorted(hand.all_tiles()) != proposed:
            print("fanscan: labels not saved: the typed hand's tiles differ from the photo's tiles "
                  "(correct tiles with 'fix N TILE' to save them)", file=sys.stderr)
            return None
    saved = save_labelled_photo(dataset_dir, image, [(t.tile, t.quad) for t in proposal.tiles],
                                tuple(proposal.image_size))
    print(f"fanscan: photo and {sum(t.tile in CLASS_NAMES for t in proposal.tiles)} labels saved: {saved}",
          file=sys.stderr)
    return saved
