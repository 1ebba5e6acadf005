"""COCO detection JSON: `images` (id, file_name, width, height), `annotations` (image_id, category_id, bbox
[x, y, width, height] in pixels) and `categories` (id, name).

A turned box is written as its axis-aligned bbox plus its four corners as the `segmentation` polygon; reading takes
the bbox. `info.image_root` records the folder the file names are relative to.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fanscan.labels.classes import CLASS_NAMES
from fanscan.labels.json_input import photo_size, read_json
from fanscan.labels.model import Box, LabelledPhoto, SourcePhoto
from fanscan.scoring.errors import FanscanError


def coco_document(photos: Iterable[LabelledPhoto], root: Path) -> dict[str, Any]:
    """The COCO document of `photos`; file names relative to `root`."""
    category_of = {name: i for i, name in enumerate(CLASS_NAMES, start=1)}
    images, annotations = [], []
    for image_id, photo in enumerate(photos, start=1):
        try:
            file_name = photo.image.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            file_name = str(photo.image.resolve())
        images.append({"id": image_id, "file_name": file_name, "width": photo.width, "height": photo.height})
        for box in photo.boxes:
            x0, y0, x1, y1 = box.bounds()
            annotation: dict[str, Any] = {
                "id": len(annotations) + 1, "image_id": image_id, "category_id": category_of[box.label],
                "bbox": [x0, y0, x1 - x0, y1 - y0], "area": box.width * box.height, "iscrowd": 0,
                "segmentation": [[float(v) for v in box.corners().reshape(-1)]],
            }
            if box.score is not None:
                annotation["score"] = box.score
            annotations.append(annotation)
    return {
        "info": {"description": "fanscan label predict", "image_root": str(root.resolve())},
        "images": images,
        "annotations": annotations,
        "categories": [{"id": i, "name": name, "supercategory": "tile"} for name, i in category_of.items()],
    }


def read_coco(path: Path) -> tuple[list[SourcePhoto], Path | None]:
    """The photos of a COCO file with their boxes, and the image root it records (if any)."""
    return coco_photos(read_json(path, "cannot read the COCO file"), path)


def coco_photos(data: Any, path: Path) -> tuple[list[SourcePhoto], Path | None]:
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("images", "annotations")):
        raise FanscanError(f"{path}: not a COCO file (expected an object with 'images' and 'annotations' lists)")
    try:
        names = {int(c["id"]): str(c["name"]) for c in data.get("categories") or []}
        by_image: dict[int, list[tuple[str, list[float], float | None]]] = {}
        for annotation in data["annotations"]:
            x, y, w, h = (float(v) for v in annotation["bbox"])
            category = int(annotation["category_id"])
            label = names.get(category, f"category {category}")
            score = annotation.get("score")
            by_image.setdefault(int(annotation["image_id"]), []).append(
                (label, [x, y, w, h], float(score) if score is not None else None))
        photos = []
        for image in data["images"]:
            size = photo_size(image.get("width"), image.get("height"))
            notes = []
            if size is None and ("width" in image or "height" in image):
                notes.append(f"records a size of {image.get('width')!r} x {image.get('height')!r}, not one of a "
                             "photo: boxes read as pixels of the photo")
            entries = by_image.get(int(image["id"]), [])
            photos.append(SourcePhoto(str(image["file_name"]), str(image["file_name"]), _on_photo(entries, size),
                                      size, notes))
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise FanscanError(f"{path}: not a COCO file: {error.__class__.__name__} {error}") from None
    root = (data.get("info") or {}).get("image_root") if isinstance(data.get("info"), dict) else None
    return photos, Path(root) if root else None


def _on_photo(entries: list[tuple[str, list[float], float | None]], size: tuple[int, int] | None):
    """COCO boxes are in pixels of the recorded size: a photo of another size scales them."""
    def place(width: int, height: int) -> list[Box]:
        sx, sy = (width / size[0], height / size[1]) if size else (1.0, 1.0)
        return [Box.from_bounds(label, x * sx, y * sy, (x + w) * sx, (y + h) * sy, score)
                for label, (x, y, w, h), score in entries]
    return place
