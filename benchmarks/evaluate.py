"""The recognition measured through the product's own `Pipeline`, per group of photos: one entry point.

    python benchmarks/evaluate.py --data ../shared/data/chinese-mahjong-v4/train --split dev --turned-copies --json OUT
    python benchmarks/evaluate.py --data ../shared/data/chinese-mahjong-v4/test --json OUT.json   # log it: TEST-LOG.md
    python benchmarks/evaluate.py --all --json benchmarks/results/evaluation_all.json --markdown OUT.md

`--all` runs every development set side by side (`DEVELOPMENT_SETS`: the dev split as it is and squeezed, the two
sets of other makers' tiles in ../shared/data, the close-ups `close_ups.py` builds from them, and the large tiles
`eval_large_tiles.py` builds from dev, up to 70 % of the frame) and prints one Markdown table; run it for every
change to detection, classification or grouping (issue 18).

Each photo goes through `fanscan.vision.pipeline.Pipeline.propose` (load, detect, crop, classify, group with the
rules), exactly as `fanscan photo` runs it; the labelled boxes (YOLO layout) are the truth. Measures, per group and
over all photos:
- `recall`: labelled tiles matched by a detection (IoU >= 0.5, greedy, best detection score first);
- `precision`: matched / every detection the product keeps (all but those read `none`): an unmatched detection read
  as `back` counts against it too (the labels have no face-down tiles, so a concealed kong's backs cost precision
  here); `precision_raw` counts every detection, `none` included;
- `end_to_end_accuracy`: labelled tiles found (by a kept detection) and read right by the classifier's own top-1,
  over all labelled tiles; `end_to_end_as_proposed`: the same with the proposal's reading (after the rules);
- `classifier_top1_labelled`: the classifier's top-1 on crops of the labelled boxes (cut as detections are cut);
- whole hand, on the photos of one hand's worth of tiles (group `hand rows`): `whole_hand_exact` = the proposal's
  tiles (faces and flowers) equal the labelled ones as a multiset; `whole_hand_exact_classifier` = the same for the
  classifier's own best reading of every tile, no rule override; `whole_hand_as_scored` = the same for the tiles the
  proposal puts in the hand, those it sets aside as lying on the table (`vision.hand_apart`: shown apart, scored in no
  hand) left out: the labels box the hand only, so a discard found and set aside costs `whole_hand_exact` but not
  what the player is scored; `hands_with_override` = proposals in which the
  rules overruled the classifier on some tile (`needs_review`), of them `overrides_made_exact` and
  `overrides_made_wrong` (exact as proposed but not by the classifier's reading, and the reverse).

Groups, from properties of the labelled boxes (no file names): `squeezed photos` (median box over 3x longer than wide:
a photo squeezed into a square by a dataset export), else by labelled tile count: `few tiles` (under 13), `hand rows`
(13-18: one hand), `table photos` (over 18).

`--split dev` keeps the development split of a train folder (`fanscan.vision.splits`); the shipped models were
trained on most of those photos (benchmarks/results/dev_split.json), which the result says.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.tiles import INDEX
from fanscan.vision import splits
from fanscan.vision.aspect import SQUEEZED_ASPECT  # the same bar as the pipeline's squeezed-photo search
from fanscan.vision.crops import DEFAULT_SPEC, crop_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.detect import CLOSE_UP_MODEL  # what the product reads close-ups with
from fanscan.vision.detection_metrics import match
from fanscan.vision.group import NONE
from fanscan.vision.load import LoadedImage, load_image
from fanscan.vision.outsized import OUTSIZED_LONG_SIDE
from fanscan.vision.proposal import TABLE as ON_THE_TABLE
from fanscan.vision.proposal import HandProposal
from fanscan.vision.yolo_data import LabelledImage, find_data_yaml, iter_split, read_class_names
from results_file import ROOT, shown_path, write_json

IOU = 0.5
SQUEEZE_RANGE = (3, 8)  # --squeeze: the private "squeezed photos" set is squeezed 3-8x
HAND_TILES = (13, 18)  # one hand: 13 or 14 tiles, up to 18 with four kongs
SQUEEZED, FEW, HAND, TABLE = "squeezed photos", "few tiles", "hand rows", "table photos"
GROUPS = (HAND, TABLE, FEW, SQUEEZED)
LABEL_KINDS = ("as labelled", "repaired", "unrepairable")
DEV_SPLIT_NOTE = ROOT / "benchmarks" / "results" / "dev_split.json"


def photo_group(boxes: np.ndarray) -> str:
    """The group of a photo from its labelled boxes (x0, y0, x1, y1) in pixels (see the module docstring)."""
    if len(boxes):
        sides = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
        aspect = sides.max(axis=1) / np.maximum(sides.min(axis=1), 1e-6)
        if float(np.median(aspect)) > SQUEEZED_ASPECT:
            return SQUEEZED
    if len(boxes) < HAND_TILES[0]:
        return FEW
    return HAND if len(boxes) <= HAND_TILES[1] else TABLE


def labelled_crops(image: np.ndarray, boxes: np.ndarray, spec=DEFAULT_SPEC) -> tuple[list[np.ndarray], list[int]]:
    """Crops of labelled boxes (pixels of `image`), clipped to the photo, cut as the pipeline cuts a detection; and
    which boxes they are (a box with no area inside the photo has no crop)."""
    height, width = image.shape[:2]
    crops, kept = [], []
    for index, (x0, y0, x1, y1) in enumerate(boxes):
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        crops.append(crop_box(image, (x0, y0, x1, y1), spec))
        kept.append(index)
    return crops, kept


def select_items(data: Path, split: str | None, limit: int | None = None) -> list[LabelledImage]:
    """The labelled photos of a YOLO folder, only those of one split (`dev` / `train`) when asked."""
    items = list(iter_split(data))
    if split is not None:
        items = splits.select(items, split, name_of=lambda item: item.image_path.name)
    if not items:
        raise FanscanError(f"{data}: no labelled photos" + (f" in the {split} split" if split else ""))
    return items[:limit]


def top_reading(tile) -> tuple[str, float]:
    """The classifier's own best candidate for a proposed tile (the proposal keeps all of them)."""
    return max([(tile.tile, tile.confidence), *tile.alternatives], key=lambda c: c[1])


def face_multiset(readings: Sequence[str]) -> Counter:
    return Counter(r for r in readings if r in INDEX)


def scored_readings(proposal: HandProposal) -> list[str]:
    """The readings of the tiles the proposal puts in the hand: those set aside on the table are in no hand."""
    return [t.tile for t in proposal.tiles if t.role != ON_THE_TABLE]


@dataclass
class PhotoResult:
    image: str
    group: str
    labelled: int
    detections: int = 0
    kept: int = 0  # detections not read `none`
    matched_raw: int = 0
    matched: int = 0  # labelled tiles matched by a kept detection
    read_right_top1: int = 0
    read_right_proposed: int = 0
    crops: int = 0
    crops_right: int = 0
    hand: bool = False
    exact: bool = False
    exact_classifier: bool = False
    exact_as_scored: bool = False  # the hand's tiles, those set aside on the table left out
    overrides: list[int] = field(default_factory=list)
    status: str = ""
    labels: str = "as labelled"  # or "repaired" (turned back from an export's rotation), "unrepairable"
    ms: float = 0.0
    scale_pass: bool = False  # the pipeline's scale pass (vision.scale) fired on the photo
    misses: list[list[float]] = field(default_factory=list)
    false_positives: list[dict] = field(default_factory=list)


def export_repair(image: np.ndarray, item: LabelledImage, truth: np.ndarray):
    """For a copy the dataset export rotated or sheared (its labels are boxes around turned boxes, far too loose to
    judge a detection by IoU): the photo turned back with tight boxes (`fanscan.training.label_repair`, as the
    detector's training validates), untrusted tiles painted over; (image, kept box indices, boxes). None for a photo
    the export did not transform; `False` when the transform cannot be undone (no box measures for it)."""
    from fanscan.training.label_repair import fill_colour, repair

    if any(b.from_polygon for b in item.boxes) or fill_colour(image) is None:
        return None  # polygon labels were taken around the turned polygon: already tight
    repaired = repair(image, truth.astype(np.float32))
    if repaired is None:
        return False
    turned = repaired.image.copy()
    for x0, y0, x1, y1 in np.round(repaired.boxes[~repaired.good]).astype(int):
        turned[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = 114
    kept = np.flatnonzero(repaired.good)
    return turned, kept, repaired.boxes[kept].astype(np.float64)


def squeeze_factors(name: str) -> tuple[float, float]:
    """A fixed squeeze for `--squeeze`: 3x to 8x along x or y, from the file name's hash (the same on every run)."""
    digest = hashlib.sha1(name.encode("utf-8")).digest()
    factor = float(SQUEEZE_RANGE[0] + digest[0] % (SQUEEZE_RANGE[1] - SQUEEZE_RANGE[0] + 1))
    return (factor, 1.0) if digest[1] % 2 else (1.0, factor)


def evaluate_photo(pipeline, item: LabelledImage, names: list[str], table: dict[str, str],
                   squeeze: bool = False, turned_copies: bool = False) -> PhotoResult | None:
    """One photo through the pipeline, compared with its labels: the whole hand on the photo as it is. With
    `turned_copies` (a Roboflow-style export whose augmented copies are turned and sheared, their corners filled
    flat), the boxes of such a copy are judged on the photo turned back (`export_repair`); off, every photo is taken
    as it is (a white-background photo must not be mistaken for a turned copy). With `squeeze`, the photo is first
    squeezed along one axis (`squeeze_factors`), as dataset exports squeeze strips into squares; a turned copy is
    then left out (None): its loose labels could not judge the boxes."""
    loaded: LoadedImage = load_image(item.image_path)
    source: LoadedImage | np.ndarray = loaded
    if squeeze:
        from fanscan.training.label_repair import fill_colour

        if turned_copies and not any(b.from_polygon for b in item.boxes) and fill_colour(loaded.image) is not None:
            return None
        fx, fy = squeeze_factors(item.image_path.name)
        height, width = loaded.image.shape[:2]
        source = cv2.resize(loaded.image, (max(1, round(width / fx)), max(1, round(height / fy))),
                            interpolation=cv2.INTER_AREA)
    started = time.perf_counter()
    proposal: HandProposal = pipeline.propose(source)
    ms = (time.perf_counter() - started) * 1000
    width, height = proposal.image_size
    truth = np.array([b.to_pixels(width, height) for b in item.boxes], np.float64).reshape(-1, 4)
    truth_ids = [table[names[b.class_index]] for b in item.boxes]
    hand = HAND_TILES[0] <= len(truth) <= HAND_TILES[1]
    result = PhotoResult(item.image_path.name, photo_group(truth), len(truth), hand=hand, status=proposal.status,
                         ms=round(ms, 1), overrides=list(proposal.rule_overrides),
                         scale_pass="scale_pass" in proposal.timings_ms)
    if hand:
        expected = face_multiset(truth_ids)
        result.exact = face_multiset([t.tile for t in proposal.tiles]) == expected
        result.exact_classifier = face_multiset([top_reading(t)[0] for t in proposal.tiles]) == expected
        result.exact_as_scored = face_multiset(scored_readings(proposal)) == expected

    image, scale = (source, 1.0) if squeeze else (loaded.image, loaded.scale)
    repaired = export_repair(image, item, truth * scale) if turned_copies and scale == 1.0 and not squeeze else None
    if repaired is False:
        result.labels = "unrepairable"
        return result
    if repaired is not None:
        image, kept_boxes, truth = repaired
        truth_ids = [truth_ids[i] for i in kept_boxes]
        scale, result.labels = 1.0, "repaired"
        proposal = pipeline.propose(image)
        result.group = photo_group(truth)
    result.labelled = len(truth)

    tiles = sorted(proposal.tiles, key=lambda t: -t.detection_score)
    kept = [t for t in tiles if t.tile != NONE]
    result.detections, result.kept = len(tiles), len(kept)
    result.matched_raw = len(match(np.array([t.box for t in tiles]).reshape(-1, 4), truth, IOU))
    pairs = match(np.array([t.box for t in kept]).reshape(-1, 4), truth, IOU)
    result.matched = len(pairs)
    for p, t in pairs:
        result.read_right_top1 += top_reading(kept[p])[0] == truth_ids[t]
        result.read_right_proposed += kept[p].tile == truth_ids[t]
    matched_kept = {p for p, _ in pairs}
    matched_truth = {t for _, t in pairs}
    result.false_positives = [{"box": [round(v, 1) for v in kept[p].box], "read": kept[p].tile,
                               "score": kept[p].detection_score} for p in range(len(kept)) if p not in matched_kept]
    result.misses = [[round(v, 1) for v in truth[t]] for t in range(len(truth)) if t not in matched_truth]

    spec = getattr(pipeline.classifier, "crop_spec", DEFAULT_SPEC)
    crops, which = labelled_crops(image, truth * scale, spec)
    if crops:
        for index, top in zip(which, pipeline.classifier.classify(np.stack(crops), 1), strict=True):
            result.crops += 1
            result.crops_right += top[0][0] == truth_ids[index]
    return result


def ratio(numerator: int, denominator: int, digits: int = 4) -> float | None:
    return round(numerator / denominator, digits) if denominator else None


def summarise(results: Sequence[PhotoResult]) -> dict:
    """The measures of a set of photos (see the module docstring)."""
    boxed = [r for r in results if r.labels != "unrepairable"]
    total = {key: sum(getattr(r, key) for r in boxed) for key in (
        "labelled", "detections", "kept", "matched_raw", "matched", "read_right_top1", "read_right_proposed",
        "crops", "crops_right")}
    hands = [r for r in results if r.hand]
    overridden = [r for r in hands if r.overrides]
    return {
        "photos": len(results),
        "photos_with_repaired_labels": sum(r.labels == "repaired" for r in results),
        "photos_without_box_measures": len(results) - len(boxed),
        "labelled_tiles": total["labelled"],
        "detections": total["detections"],
        "recall": ratio(total["matched_raw"], total["labelled"]),
        "precision": ratio(total["matched"], total["kept"]),
        "precision_raw": ratio(total["matched_raw"], total["detections"]),
        "recall_after_classifier": ratio(total["matched"], total["labelled"]),
        "dropped_as_none": total["detections"] - total["kept"],
        "end_to_end_accuracy": ratio(total["read_right_top1"], total["labelled"]),
        "end_to_end_as_proposed": ratio(total["read_right_proposed"], total["labelled"]),
        "classifier_top1_labelled": ratio(total["crops_right"], total["crops"]),
        "labelled_crops": total["crops"],
        "hand_photos": len(hands),
        "hands_exact": sum(r.exact for r in hands),
        "whole_hand_exact": ratio(sum(r.exact for r in hands), len(hands)),
        "hands_exact_classifier": sum(r.exact_classifier for r in hands),
        "whole_hand_exact_classifier": ratio(sum(r.exact_classifier for r in hands), len(hands)),
        "hands_as_scored": sum(r.exact_as_scored for r in hands),
        "whole_hand_as_scored": ratio(sum(r.exact_as_scored for r in hands), len(hands)),
        "hands_with_override": len(overridden),
        "overrides_made_exact": sum(r.exact and not r.exact_classifier for r in overridden),
        "overrides_made_wrong": sum(r.exact_classifier and not r.exact for r in overridden),
        "scale_pass_fired": sum(r.scale_pass for r in results),
        "median_ms_per_photo": round(statistics.median(r.ms for r in results), 1) if results else None,
    }


def dev_split_caveat(split: str | None) -> str | None:
    """What the shipped models saw of the development split (benchmarks/dev_split.py), in words."""
    if split != splits.DEV or not DEV_SPLIT_NOTE.exists():
        return None
    note = json.loads(DEV_SPLIT_NOTE.read_text(encoding="utf-8"))
    return (f"of this split's {note['dev_photos']} photos the shipped classifier trained on "
            f"{note['dev_photos_trained_on_by_classifier']} and the shipped detector (which predates the split) on "
            f"{note['dev_photos_trained_on_by_detector']}; {len(note['dev_sources_held_out_by_both'])} dev sources "
            "were held out by both trainings. Figures that depend on the detector are on photos it learnt from: "
            "they overstate what unseen photos get.")


def evaluate(data: Path, pipeline, split: str | None = None, limit: int | None = None, progress: bool = True,
             squeeze: bool = False, turned_copies: bool = False) -> dict:
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    items = select_items(data, split, limit)
    started = time.perf_counter()
    results = []
    for n, item in enumerate(items, start=1):
        result = evaluate_photo(pipeline, item, names, table, squeeze, turned_copies)
        if result is not None:
            results.append(result)
        if progress and results and (n % 20 == 0 or n == len(items)):
            done = summarise(results)
            print(f"{n}/{len(items)} photos: recall {done['recall']}, precision {done['precision']}", file=sys.stderr)
    groups = {name: summarise([r for r in results if r.group == name]) for name in GROUPS}
    # The box measures of export-turned copies rest on repaired labels (imperfect: models/tile_detector.md); the
    # photos whose labels are as published judge the boxes best.
    by_labels = {kind: summarise([r for r in results if r.labels == kind]) for kind in LABEL_KINDS}
    return {
        "data": shown_path(data),
        "split": split or "all",
        "turned_copies_repaired": turned_copies,
        "squeezed": f"each photo squeezed {SQUEEZE_RANGE[0]}-{SQUEEZE_RANGE[1]}x along one axis" if squeeze else None,
        "detector": shown_path(pipeline.detector.path),
        "score_threshold": pipeline.detector.info.score_threshold,
        "classifier": shown_path(pipeline.classifier.path) if hasattr(pipeline.classifier, "path") else None,
        "iou_threshold": IOU,
        "caveat": dev_split_caveat(split),
        "all": summarise(results),
        "groups": groups,
        "labels": by_labels,
        "seconds": round(time.perf_counter() - started, 1),
        "per_photo": [asdict(r) for r in results],
    }


@dataclass(frozen=True)
class DevelopmentSet:
    """One row of `--all`: a YOLO folder under the shared data, how it is read, and what it stands for."""

    name: str
    folder: str  # under the shared data folder: the YOLO folder read, or the one a built set is built from
    split: str | None = None
    squeeze: bool = False
    turned_copies: bool = False
    note: str = ""
    built_by: str = ""  # "": the folder read as it is; else the benchmark that builds the set (BUILDERS)

    def __post_init__(self) -> None:
        if self.built_by not in BUILDERS:
            raise ValueError(f"development set {self.name!r}: built_by {self.built_by!r} is none of {BUILDERS}")


LARGE_TILES = "large tiles"
# Sets built from the shared data rather than read from it: the close-ups (`close_ups.py`, written to a temporary
# YOLO folder from every folder of its SOURCES) and the large tiles (`eval_large_tiles.py`, built in memory from
# `folder` and measured case by case).
CLOSE_UPS_BUILDER, LARGE_TILES_BUILDER = "close_ups.py", "eval_large_tiles.py"
ARTWORK_CLOSE_UPS_BUILDER = "artwork_close_ups.py"
BUILDERS = ("", CLOSE_UPS_BUILDER, LARGE_TILES_BUILDER, ARTWORK_CLOSE_UPS_BUILDER)
DEVELOPMENT_SETS = (
    DevelopmentSet("dev", "chinese-mahjong-v4/train", splits.DEV, turned_copies=True,
                   note="the development split of the familiar style"),
    DevelopmentSet("dev squeezed", "chinese-mahjong-v4/train", splits.DEV, squeeze=True, turned_copies=True,
                   note="the same photos squeezed 3-8x along one axis (as dataset exports squeeze them)"),
    DevelopmentSet("riichi-table-leomiura", "riichi-table-leomiura",
                   note="another maker's riichi set, 67 camera frames (development only)"),
    DevelopmentSet("hk-crops-justinchan", "hk-crops-justinchan",
                   note="73 single-tile crops of Hong Kong-style sets; detection on a crop of one tile"),
    DevelopmentSet("close-ups", "", built_by=CLOSE_UPS_BUILDER,
                   note="1-4 tiles cut from both sets and from dev, laid on paper-like sheets framed as a camera "
                        "frames them (benchmarks/close_ups.py, built afresh in a temporary folder)"),
    DevelopmentSet(LARGE_TILES, "chinese-mahjong-v4/train", splits.DEV, built_by=LARGE_TILES_BUILDER,
                   note="one to a few tiles of dev photos, each 15-70 % of the frame's long side, cut out or pasted "
                        "on near-white (benchmarks/eval_large_tiles.py's 300 cases): a tile filling a phone's frame"),
    DevelopmentSet("artwork close-ups", "", built_by=ARTWORK_CLOSE_UPS_BUILDER,
                   note="1-4 rendered tiles of an art style the detector never saw (gleitz-mit), large on paper-like "
                        "sheets (benchmarks/artwork_close_ups.py); the classifier was trained on renders of it"),
)
SHARED_DATA = ROOT.parent / "shared" / "data"
TABLE_MEASURES = ("recall", "precision", "end_to_end_accuracy", "end_to_end_as_proposed", "classifier_top1_labelled",
                  "whole_hand_exact", "whole_hand_as_scored")


def evaluate_all(pipeline, data_root: Path = SHARED_DATA, limit: int | None = None,
                 sets: Sequence[DevelopmentSet] = DEVELOPMENT_SETS) -> dict:
    """Every development set through one pipeline: {set name: its row (`development_row`)}; a set whose data is
    missing (its folder, or a source `close_ups.py` builds from) is reported as missing, not measured."""
    import tempfile

    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="close-ups-") as scratch:
        for entry in sets:
            rows[entry.name] = development_row(pipeline, entry, data_root, Path(scratch), limit)
            if "all" in rows[entry.name]:
                measured = rows[entry.name]["all"]
                print(f"{entry.name}: recall {measured['recall']}, precision {measured['precision']}", file=sys.stderr)
    classifier = getattr(pipeline, "classifier", None)
    return {"detector": shown_path(pipeline.detector.path),
            "classifier": shown_path(classifier.path) if hasattr(classifier, "path") else None,
            "iou_threshold": IOU, "sets": rows}


def development_row(pipeline, entry: DevelopmentSet, data_root: Path, scratch: Path, limit: int | None) -> dict:
    """One set of `--all` measured: its row (summary and per photo), or what is missing to measure it. A set built
    by `close_ups.py` is written under `scratch` first."""
    import close_ups

    folder = data_root / entry.folder
    if entry.built_by == CLOSE_UPS_BUILDER:
        if not all((data_root / source).is_dir() for source in close_ups.SOURCES):
            return {"missing": "a source of benchmarks/close_ups.py", "note": entry.note}
        folder = scratch / "close-ups"
        close_ups.build(folder, data_root)
    elif entry.built_by == ARTWORK_CLOSE_UPS_BUILDER:
        import artwork_close_ups

        artwork = data_root.parent / "artwork"
        if not (artwork / artwork_close_ups.FACES).is_dir():
            return {"missing": shown_path(artwork / artwork_close_ups.FACES), "note": entry.note}
        folder = scratch / "artwork-close-ups"
        artwork_close_ups.build(folder, artwork)
    elif not folder.is_dir():
        return {"missing": shown_path(folder), "note": entry.note}
    if entry.built_by == LARGE_TILES_BUILDER:
        return large_tiles_row(pipeline, folder, limit, entry.note)
    result = evaluate(folder, pipeline, entry.split, limit, progress=False, squeeze=entry.squeeze,
                      turned_copies=entry.turned_copies)
    return {"data": f"built by benchmarks/{entry.built_by}" if entry.built_by else result["data"],
            "split": result["split"], "note": entry.note, "all": result["all"], "groups": result["groups"],
            "seconds": result["seconds"], "per_photo": [_brief(r) for r in result["per_photo"]]}


def large_tiles_row(pipeline, data: Path, limit: int | None, note: str) -> dict:
    """The large-tile close-ups of `eval_large_tiles.py` (its cases and seed) as one `--all` row: a case is a
    photo."""
    import eval_large_tiles as large

    started = time.perf_counter()
    cases = large.build_cases(large.load_sources(data), large.DEFAULT_COUNT, large.DEFAULT_SEED)[:limit]
    results = [large.evaluate_case(pipeline, case) for case in cases]
    measures = large.summarise(results)
    return {"data": f"built by benchmarks/{LARGE_TILES_BUILDER}", "split": splits.DEV, "note": note,
            "all": {"photos": measures["cases"], **measures},
            "groups": large.report(results)["all"]["by_size"], "seconds": round(time.perf_counter() - started, 1),
            "per_photo": [{"image": f"{n:03d}_{r.variant}", "labelled": r.labelled, "detections": r.detections,
                           "kept": r.kept, "matched_raw": r.matched_raw, "matched": r.matched,
                           "read_right_top1": r.read_right, "scale_pass": r.scale_pass}
                          for n, r in enumerate(results)]}


def _brief(photo: dict) -> dict:
    """What `--all` keeps of a photo's result: enough to compare two runs photo by photo (whole hands on a hand's
    photos only)."""
    kept = ("image", "labelled", "detections", "kept", "matched_raw", "matched", "read_right_top1", "status",
            "scale_pass", *(("exact", "exact_as_scored") if photo["hand"] else ()))
    return {key: photo[key] for key in kept}


def markdown_table(result: dict) -> str:
    """The `--all` result as one Markdown table, a set a row (the block the docs include)."""
    header = ["set", "photos", "labelled tiles", *(m.replace("_", " ") for m in TABLE_MEASURES)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, row in result["sets"].items():
        if "missing" in row:
            lines.append(f"| {name} | " + " | ".join(["—"] * (len(header) - 1)) + " |")
            continue
        measures = row["all"]
        cells = [name, str(measures["photos"]), str(measures["labelled_tiles"]),
                 *("—" if measures.get(m) is None else f"{measures[m]:.3f}" for m in TABLE_MEASURES)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser, data_required: bool = True) -> None:
    """The options every evaluation script shares."""
    parser.add_argument("--data", type=Path, required=data_required,
                        help="YOLO-layout folder (images/, labels/, data.yaml)")
    parser.add_argument("--split", choices=splits.SPLITS, help="only this split of a train folder (dev: the "
                                                               "development split, fanscan.vision.splits)")
    parser.add_argument("--json", type=Path, help="write the full result here")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument("--profile", type=Path, help="set profile (fanscan calibrate) for the classifier")
    parser.add_argument("--squeeze", action="store_true",
                        help="squeeze each photo 3-8x along one axis first (as dataset exports squeeze strips); "
                             "copies the export turned are left out (with --turned-copies)")
    parser.add_argument("--turned-copies", action="store_true",
                        help="the folder is a dataset export whose augmented copies are turned and sheared with flat "
                             "corners (chinese-mahjong-v4/train): judge their boxes on the photo turned back, with "
                             "repaired labels")


def make_pipeline(detector_path: Path | None = None, classifier_path: Path | None = None,
                  threshold: float | None = None, profile: Path | None = None, scale_pass: bool = True,
                  aspect_search: bool = True, merge_splits: bool = True, second_reader: Path | None = None,
                  close_up_detector: Path | None = CLOSE_UP_MODEL, outsized_boxes: float | None = OUTSIZED_LONG_SIDE):
    """The product's pipeline with the given (default: shipped) models, one onnxruntime thread each; with
    `second_reader` (a PP-OCR rec ONNX), the text recogniser asked about doubtful crops (`vision.second_reader`);
    `close_up_detector` reads the photos the scale pass calls close-ups (`vision.scale.read_close_up`; None: off);
    `outsized_boxes`: the bar over which a box is too large for its photo (`vision.outsized`; None: off)."""
    from dataclasses import replace

    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import TileDetector
    from fanscan.vision.pipeline import Pipeline

    detector = TileDetector(detector_path, threads=1)
    detector.merge_splits = merge_splits
    if threshold is not None:
        detector.info = replace(detector.info, score_threshold=threshold)
    reader = None
    if second_reader is not None:
        from fanscan.vision.second_reader import SecondReader

        reader = SecondReader(second_reader, threads=1)
    close_up = None
    if close_up_detector is not None:
        close_up = TileDetector(close_up_detector, threads=1)
        close_up.merge_splits = merge_splits
    return Pipeline(detector, TileClassifier(classifier_path, threads=1, profile=profile), scale_pass=scale_pass,
                    aspect_search=aspect_search, second_reader=reader, close_up_detector=close_up,
                    outsized_boxes=outsized_boxes)


def size_ratio(text: str) -> float:
    """`--outsized-boxes`: a ratio of long sides over 1 (argparse's one-line error otherwise)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is no ratio of long sides over 1")
    return value


def print_summary(result: dict) -> None:
    rows = [("all", result["all"]), *result["groups"].items(),
            *((f"labels {kind}", m) for kind, m in result["labels"].items() if m["photos"])]
    print(f"{result['data']} ({result['split']}): {result['all']['photos']} photos in {result['seconds']} s")
    keys = ("photos", "labelled_tiles", "recall", "precision", "end_to_end_accuracy", "end_to_end_as_proposed",
            "classifier_top1_labelled", "hand_photos", "whole_hand_exact", "whole_hand_exact_classifier",
            "whole_hand_as_scored", "hands_with_override")
    print("group".ljust(24) + "".join(k[:12].rjust(13) for k in keys))
    for name, measures in rows:
        print(name.ljust(24) + "".join(str(measures[k]).rjust(13) for k in keys))
    if result["caveat"]:
        print(f"caveat: {result['caveat']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, data_required=False)
    parser.add_argument("--all", action="store_true",
                        help="every development set side by side (DEVELOPMENT_SETS), from --shared-data")
    parser.add_argument("--shared-data", type=Path, default=SHARED_DATA, help="the shared data folder (--all)")
    parser.add_argument("--markdown", type=Path, help="--all: also write the Markdown table here")
    parser.add_argument("--sets", help="--all: only these sets, comma-separated names (default: every one)")
    parser.add_argument("--detector", type=Path, help="detector ONNX (default: the shipped one)")
    parser.add_argument("--classifier", type=Path, help="classifier ONNX (default: the shipped one)")
    parser.add_argument("--no-scale-pass", action="store_true", help="switch the scale pass off (to measure it)")
    parser.add_argument("--close-up-detector", type=Path, default=CLOSE_UP_MODEL,
                        help="detector ONNX that reads the photos the scale pass calls close-ups (default: the "
                             "shipped close-up model)")
    parser.add_argument("--no-close-up-detector", action="store_true",
                        help="read close-ups with the first detector too (to measure the close-up detector)")
    parser.add_argument("--no-aspect-search", action="store_true",
                        help="switch the squeezed-photo search off (to measure it)")
    parser.add_argument("--no-split-merge", action="store_true",
                        help="leave a tile found as two halves as two boxes (to measure detect.merge_split_tiles)")
    parser.add_argument("--outsized-boxes", type=size_ratio, default=OUTSIZED_LONG_SIDE, metavar="RATIO",
                        help="drop a box whose long side is over RATIO times its photo's median (vision.outsized; "
                             f"default {OUTSIZED_LONG_SIDE})")
    parser.add_argument("--keep-outsized-boxes", action="store_true",
                        help="keep boxes too large for their photo (to measure vision.outsized)")
    parser.add_argument("--second-reader", type=Path, help="text recogniser ONNX to ask about doubtful crops "
                        "(vision.second_reader; default: off)")
    args = parser.parse_args(argv)
    if args.all == (args.data is not None):
        parser.error("give either --data or --all")
    try:
        pipeline = make_pipeline(args.detector, args.classifier, profile=args.profile,
                                 scale_pass=not args.no_scale_pass, aspect_search=not args.no_aspect_search,
                                 merge_splits=not args.no_split_merge, second_reader=args.second_reader,
                                 close_up_detector=None if args.no_close_up_detector else args.close_up_detector,
                                 outsized_boxes=None if args.keep_outsized_boxes else args.outsized_boxes)
        if args.all:
            chosen = DEVELOPMENT_SETS
            if args.sets:
                names = [name.strip() for name in args.sets.split(",")]
                unknown = sorted(set(names) - {entry.name for entry in DEVELOPMENT_SETS})
                if unknown:
                    raise FanscanError(f"--sets: no set named {', '.join(unknown)} "
                                       f"(sets: {', '.join(entry.name for entry in DEVELOPMENT_SETS)})")
                chosen = tuple(entry for entry in DEVELOPMENT_SETS if entry.name in names)
            result = evaluate_all(pipeline, args.shared_data, args.limit, chosen)
        else:
            result = evaluate(args.data, pipeline, args.split, args.limit, squeeze=args.squeeze,
                              turned_copies=args.turned_copies)
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.all:
        result["passes"] = {"scale_pass": not args.no_scale_pass, "aspect_search": not args.no_aspect_search,
                            "split_merge": not args.no_split_merge,
                            "outsized_boxes": None if args.keep_outsized_boxes else args.outsized_boxes,
                            "close_up_detector": None if args.no_close_up_detector else args.close_up_detector.name}
        table = markdown_table(result)
        print(table, end="")
        if args.markdown:
            args.markdown.parent.mkdir(parents=True, exist_ok=True)
            args.markdown.write_text(table, encoding="utf-8")
    else:
        print_summary(result)
    if args.json:
        write_json(args.json, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
