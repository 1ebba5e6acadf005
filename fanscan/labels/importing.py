"""`fanscan label import`: a Label Studio export, a COCO file or a YOLO folder → a YOLO dataset with fanscan's
class names, every box checked (`checks.py`). All photos are found and opened before anything is written; the
dataset appears whole or not at all."""

from __future__ import annotations

from pathlib import Path

from fanscan.labels import coco, label_studio, yolo
from fanscan.labels.atomic import new_folder, report_path_for
from fanscan.labels.checks import Report, check_photo
from fanscan.labels.finder import PhotoFinder
from fanscan.labels.json_input import read_json
from fanscan.labels.model import LabelledPhoto, SourcePhoto
from fanscan.scoring.errors import FanscanError


def read_source(source: Path) -> tuple[str, list[SourcePhoto], list[Path]]:
    """(format, photos, folders relative photo names may be relative to) of an export file or a YOLO folder."""
    source = Path(source)
    if source.is_dir():
        return "yolo", yolo.read_dataset(source), [source]
    if not source.is_file():
        raise FanscanError(f"{source}: no such file or folder")
    data = read_json(source, "not a readable JSON export")
    if isinstance(data, dict) and "annotations" in data and "images" in data:
        photos, root = coco.coco_photos(data, source)
        return "coco", photos, [source.parent] + ([root] if root else [])
    if isinstance(data, list):
        return "label-studio", label_studio.export_photos(data, source), [source.parent]
    raise FanscanError(f"{source}: neither a Label Studio JSON export (a list of tasks) nor a COCO file "
                       "(an object with 'images' and 'annotations')")


def import_labels(source: Path, out: Path, images: Path | None = None, replace: bool = False,
                  drop_unknown: bool = False) -> Report:
    """Read `source`, check every box, write the YOLO dataset `out`; returns the report (also written beside it)."""
    from fanscan.vision.load import load_image

    fmt, sources, bases = read_source(source)
    if images is not None and not Path(images).is_dir():
        raise FanscanError(f"--images {images}: not a folder")
    finder = PhotoFinder(images, bases)
    found = [(item, Path(item.reference) if fmt == "yolo" else finder.find(item.reference)) for item in sources]
    missing = [item.reference for item, path in found if path is None]
    if missing:
        hint = "" if images is not None else "; say where the photos are with --images DIR"
        raise FanscanError(f"{source}: {len(missing)} of {len(found)} photos not found, the first {missing[0]!r}{hint}")
    report = Report()
    checked: list[LabelledPhoto] = []
    for item, path in found:
        loaded = load_image(path)  # a photo that cannot be opened stops the import before anything is written
        width, height = loaded.original_size
        for note in item.notes:
            report.lines.append(f"{item.name}: {note}")
        if item.size is not None and item.size != (width, height):
            report.lines.append(f"{item.name}: labelled on a {item.size[0]}x{item.size[1]} photo, the photo is "
                                f"{width}x{height}: boxes placed on the photo's size")
        photo = LabelledPhoto(path, width, height, item.boxes_on(width, height), item.name)
        try:
            checked.append(check_photo(photo, report, loaded.image, loaded.scale, drop_unknown))
        except FanscanError as error:
            raise FanscanError(f"{source}: {error}") from None
    with new_folder(out, replace) as work:
        yolo.write_dataset(work, checked)
    report_path = report_path_for(out)
    report.write(report_path, f"fanscan label import {source} --out {out} ({fmt})", "boxes written")
    report.print_summary("boxes written", report_path)
    return report
