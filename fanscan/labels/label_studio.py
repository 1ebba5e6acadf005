"""Label Studio: the labelling config, tasks with pre-annotations (`predictions`), and reading a JSON export.

A region is Label Studio's rectangle: `x`, `y` the top-left corner of the box before it is turned, `width`,
`height`, all in percent of the photo's width (x, width) and height (y, height), and `rotation` in degrees,
clockwise about that corner. `region_of` and `box_of_region` turn a `Box` into one and back exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any

from fanscan.labels.classes import CLASS_NAMES, readable_name
from fanscan.labels.json_input import photo_size, read_json
from fanscan.labels.model import Box, LabelledPhoto, SourcePhoto
from fanscan.scoring.errors import FanscanError

FROM_NAME, TO_NAME = "tile", "image"  # the names the config gives its RectangleLabels and Image tags
MODEL_VERSION = "fanscan"


def label_config() -> str:
    """The labelling config matching `fanscan label predict --format label-studio`: one rectangle label per
    tile kind, its value the tile id (what exports hold), its button the readable name."""
    labels = "\n".join(
        f'    <Label value="{tile}" html="{escape(readable_name(tile))}"/>' for tile in CLASS_NAMES
    )
    return (
        "<View>\n"
        f'  <Image name="{TO_NAME}" value="$image" zoom="true" zoomControl="true" rotateControl="false"/>\n'
        f'  <RectangleLabels name="{FROM_NAME}" toName="{TO_NAME}" canRotate="true" showInline="false">\n'
        f"{labels}\n"
        "  </RectangleLabels>\n"
        "</View>\n"
    )


def region_of(box: Box, width: int, height: int, number: int) -> dict[str, Any]:
    """One `rectanglelabels` result for a box on a photo of `width` x `height` pixels."""
    x, y = box.corners()[0]
    region: dict[str, Any] = {
        "id": f"t{number}",
        "type": "rectanglelabels",
        "from_name": FROM_NAME,
        "to_name": TO_NAME,
        "original_width": width,
        "original_height": height,
        "image_rotation": 0,
        "value": {
            "x": 100.0 * float(x) / width,
            "y": 100.0 * float(y) / height,
            "width": 100.0 * box.width / width,
            "height": 100.0 * box.height / height,
            "rotation": box.rotation,
            "rectanglelabels": [box.label],
        },
    }
    if box.score is not None:
        region["score"] = box.score
    return region


def box_of_region(value: dict[str, Any], width: int, height: int, label: str, score: float | None) -> Box:
    """The box of a region's `value` on a photo of `width` x `height` pixels."""
    return Box.from_corner(
        label, float(value["x"]) * width / 100.0, float(value["y"]) * height / 100.0,
        float(value["width"]) * width / 100.0, float(value["height"]) * height / 100.0,
        float(value.get("rotation") or 0.0), score,
    )


def tasks_for(photos: Iterable[LabelledPhoto], image_url: Callable[[LabelledPhoto], str],
              model_version: str = MODEL_VERSION) -> list[dict[str, Any]]:
    """Label Studio tasks with the boxes as one prediction each. The prediction's score is its least sure box's,
    so sorting tasks by it in Label Studio puts the photos that need a look first."""
    tasks = []
    for photo in photos:
        results = [region_of(box, photo.width, photo.height, n) for n, box in enumerate(photo.boxes, start=1)]
        scores = [box.score for box in photo.boxes if box.score is not None]
        prediction: dict[str, Any] = {"model_version": model_version, "result": results}
        if scores:
            prediction["score"] = min(scores)
        tasks.append({"data": {"image": image_url(photo)}, "predictions": [prediction]})
    return tasks


def _image_reference(task: dict[str, Any]) -> str:
    data = task.get("data")
    if not isinstance(data, dict):
        raise ValueError("a task without 'data'")
    if isinstance(data.get(TO_NAME), str):
        return data[TO_NAME]
    for value in data.values():  # a config that named its image field otherwise
        if isinstance(value, str) and Path(value.split("?")[0]).suffix.lower() in (".jpg", ".jpeg", ".png", ".webp"):
            return value
    raise ValueError("a task whose 'data' names no photo")


def _chosen_result(task: dict[str, Any], notes: list[str]) -> list[dict[str, Any]]:
    """The latest annotation that was not cancelled; a task nobody annotated gives its latest prediction."""
    annotations = [a for a in task.get("annotations") or [] if isinstance(a, dict)]
    usable = [a for a in annotations if not a.get("was_cancelled")]
    if usable:
        chosen = max(usable, key=lambda a: (str(a.get("updated_at") or a.get("created_at") or ""), a.get("id") or 0))
        if len(usable) > 1:
            notes.append(f"{len(usable)} annotations: the latest (id {chosen.get('id')}) used")
        return list(chosen.get("result") or [])
    predictions = [p for p in task.get("predictions") or [] if isinstance(p, dict)]
    if predictions:
        chosen = predictions[-1]
        notes.append(f"no annotation: prediction {chosen.get('model_version') or ''} used".replace("  ", " "))
        return list(chosen.get("result") or [])
    if annotations:
        notes.append("every annotation cancelled (skipped): no boxes")
    return []


def read_export(path: Path) -> list[SourcePhoto]:
    """The tasks of a Label Studio JSON export (the 'JSON' format: a list of tasks with `annotations`)."""
    return export_photos(read_json(path, "cannot read the export"), path)


def export_photos(data: Any, path: Path) -> list[SourcePhoto]:
    """The tasks of a parsed export (`read_export`); `path` names it in errors."""
    if not isinstance(data, list) or not all(isinstance(t, dict) and "data" in t for t in data):
        raise FanscanError(f"{path}: not a Label Studio JSON export (expected a list of tasks, each with 'data': "
                           "export as JSON, not JSON-MIN)")
    tasks = []
    for index, task in enumerate(data, start=1):
        where = f"{path}: task {task.get('id', index)}"
        try:
            reference = _image_reference(task)
            notes: list[str] = []
            regions, width, height = [], 0, 0
            for region in _chosen_result(task, notes):
                if not isinstance(region, dict) or not isinstance(region.get("value"), dict):
                    raise ValueError("a result that is not a region")
                kind = region.get("type", "")
                value = region["value"]
                labels = value.get("rectanglelabels") or value.get("labels") or []
                if kind not in ("rectanglelabels", "rectangle"):
                    notes.append(f"a {kind} region is not a box: dropped")
                    continue
                recorded = photo_size(region.get("original_width"), region.get("original_height"))
                if recorded is not None:
                    width, height = recorded
                for key in ("x", "y", "width", "height"):
                    float(value[key])
                if len(labels) != 1:
                    notes.append(f"a region with {len(labels)} labels ({', '.join(map(str, labels))}): dropped")
                    continue
                score = region.get("score")
                regions.append((value, str(labels[0]), float(score) if score is not None else None))
        except (ValueError, TypeError, KeyError, OverflowError) as error:
            raise FanscanError(f"{where}: not a Label Studio task: {error}") from None
        name = f"task {task.get('id', index)} ({Path(reference.split('?d=')[-1]).name})"
        tasks.append(SourcePhoto(reference, name, _on_photo(regions), (width, height) if width else None, notes))
    return tasks


def _on_photo(regions: list[tuple[dict[str, Any], str, float | None]]) -> Callable[[int, int], list[Box]]:
    """Regions are in percent of the photo: its real size places them."""
    return lambda width, height: [box_of_region(value, width, height, label, score)
                                  for value, label, score in regions]
