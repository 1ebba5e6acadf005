"""`fanscan label predict`: the photo pipeline's guesses on a folder of photos, as pre-annotations.

Each tile the pipeline finds becomes a box with its reading as label and the classifier's probability as score;
the checks of `checks.py` run on them as on a person's labels, and a photo that cannot be read is a line in the
report (the run goes on).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from fanscan.labels import coco, label_studio, yolo
from fanscan.labels.atomic import new_folder, report_path_for, write_text
from fanscan.labels.checks import Report, check_photo
from fanscan.labels.finder import DOCUMENT_ROOT_ENV
from fanscan.labels.model import Box, LabelledPhoto
from fanscan.scoring.errors import FanscanError
from fanscan.vision.yolo_data import IMAGE_SUFFIXES

FORMATS = ("label-studio", "yolo", "coco")


def photos_in(folder: Path, recursive: bool) -> list[Path]:
    folder = Path(folder)
    if not folder.is_dir():
        raise FanscanError(f"{folder}: not a folder of photos")
    found = folder.rglob("*") if recursive else folder.iterdir()
    photos = sorted(p for p in found if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not photos:
        deeper = "" if recursive else " (photos in sub-folders: --recursive)"
        raise FanscanError(f"{folder}: no photos (.jpg, .jpeg, .png, .webp, .bmp){deeper}")
    return photos


def boxes_of_proposal(proposal) -> list[Box]:
    """The proposal's tiles as boxes: its reading (a tile id, `back` or `none`) and confidence."""
    return [Box.from_quad(tile.tile, tile.quad, score=tile.confidence) for tile in proposal.tiles]


def guess_photos(photos: list[Path], folder: Path, report: Report, pipeline=None,
                 progress: Callable[[str], None] | None = None) -> list[LabelledPhoto]:
    """Every readable photo with the pipeline's checked boxes (names in the report relative to `folder`)."""
    from fanscan.vision.load import load_image
    from fanscan.vision.pipeline import default_pipeline

    pipeline = pipeline or default_pipeline()
    guessed = []
    for number, path in enumerate(photos, start=1):
        name = path.relative_to(folder).as_posix()
        try:
            loaded = load_image(path)
            proposal = pipeline.propose(loaded)
        except FanscanError as error:
            report.lines.append(f"{name}: photo skipped: {error}")
            report.counts["skipped"] += 1
            continue
        width, height = loaded.original_size
        photo = LabelledPhoto(path, width, height, boxes_of_proposal(proposal), name)
        guessed.append(check_photo(photo, report, loaded.image, loaded.scale))
        if progress is not None:
            progress(f"{number}/{len(photos)} {name}: {len(guessed[-1].boxes)} tiles")
    return guessed


def local_files_url(folder: Path, prefix: str | None) -> Callable[[LabelledPhoto], str]:
    """How a task names its photo: `prefix` + the path below `folder`, or by default Label Studio's local-files
    URL, relative to its document root (the environment variable, else `/`)."""
    if prefix is None:
        root = Path(os.environ.get(DOCUMENT_ROOT_ENV) or "/").resolve()
        try:
            below_root = folder.resolve().relative_to(root).as_posix()
        except ValueError:
            raise FanscanError(f"{folder} is not below {DOCUMENT_ROOT_ENV}={root}: move the photos or give "
                               "--image-url") from None
        prefix = "/data/local-files/?d=" + (f"{below_root}/" if below_root != "." else "")
    return lambda photo: prefix + quote(photo.image.relative_to(folder).as_posix())


def predict(folder: Path, out: Path, fmt: str, recursive: bool = False, image_url: str | None = None,
            replace: bool = False, pipeline=None, progress: Callable[[str], None] | None = None) -> Report:
    """Write the pipeline's guesses on the photos of `folder` to `out` in `fmt`; returns the check report (also
    written beside `out`)."""
    if fmt not in FORMATS:
        raise FanscanError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    folder, out = Path(folder), Path(out)
    if fmt != "yolo" and out.exists() and not out.is_file():
        raise FanscanError(f"{out} is a folder: --format {fmt} writes one JSON file")
    if out.exists() and not replace and (fmt != "yolo" or not out.is_dir() or any(out.iterdir())):
        raise FanscanError(f"{out} already exists: choose another --out (or --replace)")  # before minutes of work
    url_of = local_files_url(folder, image_url) if fmt == "label-studio" else None
    photos = photos_in(folder, recursive)
    report = Report()
    guessed = guess_photos(photos, folder, report, pipeline, progress)
    if fmt == "yolo":
        with new_folder(out, replace) as work:
            yolo.write_dataset(work, guessed)
    else:
        document = (label_studio.tasks_for(guessed, url_of) if fmt == "label-studio"
                    else coco.coco_document(guessed, folder))
        write_text(out, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    report_path = report_path_for(out)
    report.write(report_path, f"fanscan label predict {folder} --format {fmt} --out {out}", "boxes written")
    report.print_summary("boxes written", report_path)
    return report
