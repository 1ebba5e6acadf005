"""Top-1 accuracy of the tile classifier on every labelled box of a YOLO-layout dataset.

    python benchmarks/eval_classifier.py --data ../shared/data/chinese-mahjong-v4/test --json OUT.json
    python benchmarks/eval_classifier.py --data ../shared/data/chinese-mahjong-v4/train --split dev --json OUT.json

Each photo is loaded as the product loads it (`load_image`), each box cut exactly as the photo pipeline cuts a
detection (`benchmarks/evaluate.py` `labelled_crops`: the model's own crop spec, sideways boxes turned upright) and
classified. The boxes are the labels as published (the development split's export-turned copies have loose boxes
around turned tiles: the harder case the classifier's card calls "loose"). Prints top-1 overall and per class, the
most frequent confusions, and writes a confusion-matrix PNG (rows: truth, columns: prediction) beside the JSON (or
to --png).

`--model` given more than once reads every crop by the mean of the models' probabilities (an ensemble: what the
models would read together, the bar a single network distilled from them is measured against; not a product path).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from evaluate import add_arguments, labelled_crops, select_items
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import DEFAULT_MODEL, TileClassifier
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.load import load_image
from fanscan.vision.yolo_data import find_data_yaml, read_class_names
from results_file import shown_path, write_json


class MeanOfClassifiers:
    """Classifiers of one interface (classes, crop spec) read together: the mean of their probabilities."""

    def __init__(self, models: list[Path]):
        self.members = [TileClassifier(m) for m in models]
        first = self.members[0]
        for path, member in zip(models[1:], self.members[1:], strict=True):
            if member.classes != first.classes or member.crop_spec != first.crop_spec:
                raise FanscanError(f"{path}: classes or crop spec differ from {models[0]}; cannot read together")
        self.classes, self.crop_spec = first.classes, first.crop_spec

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        return np.mean([m.probabilities(crops) for m in self.members], axis=0)

    classify = TileClassifier.classify  # its top-k over this class's probabilities


def evaluate(data: Path, model: Path | list[Path | None], split: str | None = None, limit: int | None = None,
             profile: Path | None = None) -> dict:
    models = [model] if isinstance(model, Path) else list(model)
    if len(models) > 1 and profile is not None:
        raise FanscanError("--profile reads with one classifier, not with several --model")
    classifier = TileClassifier(models[0], profile=profile) if len(models) == 1 else MeanOfClassifiers(models)
    models = [classifier.path] if len(models) == 1 else models  # a profile alone: the file it was built for
    spec = classifier.crop_spec
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    classes = list(classifier.classes)
    truth: list[str] = []
    predicted: list[str] = []
    broken: list[bool] = []  # box over 3x longer than wide: a tile of a photo squeezed to 640x640 (reported apart)
    worst: list[dict] = []
    started = time.time()
    images = select_items(data, split, limit)
    for number, item in enumerate(images, start=1):
        loaded = load_image(item.image_path)
        h, w = loaded.image.shape[:2]
        all_boxes = np.array([b.to_pixels(w, h) for b in item.boxes], np.float64).reshape(-1, 4)
        crops, which = labelled_crops(loaded.image, all_boxes, spec)
        if not crops:
            continue
        labels = [table[names[item.boxes[i].class_index]] for i in which]
        boxes = [[round(v / loaded.scale, 1) for v in all_boxes[i]] for i in which]
        for x0, y0, x1, y1 in all_boxes[which]:
            broken.append(max(x1 - x0, y1 - y0) > 3 * min(x1 - x0, y1 - y0))
        for label, top, box in zip(labels, classifier.classify(np.stack(crops), k=2), boxes, strict=True):
            truth.append(label)
            predicted.append(top[0][0])
            if top[0][0] != label:
                worst.append({"image": item.image_path.name, "box": box, "truth": label, "predicted": top[0][0],
                              "probability": round(top[0][1], 4)})
        if number % 20 == 0 or number == len(images):
            print(f"  {number}/{len(images)} images, {len(truth)} crops", file=sys.stderr, flush=True)
    truth_a, pred_a = np.array(truth), np.array(predicted)
    correct = truth_a == pred_a
    normal = ~np.array(broken, bool)
    per_class = {}
    for name in classes:
        mask = truth_a == name
        if mask.any():
            per_class[name] = {"n": int(mask.sum()), "top1": round(float(correct[mask].mean()), 4)}
    matrix = np.zeros((len(classes), len(classes)), np.int64)
    index = {c: i for i, c in enumerate(classes)}
    for t, p in zip(truth, predicted, strict=True):
        matrix[index[t], index[p]] += 1
    pairs: dict[tuple[str, str], int] = {}
    for t, p in zip(truth, predicted, strict=True):
        if t != p:
            pairs[(t, p)] = pairs.get((t, p), 0) + 1
    confusions = [{"truth": t, "predicted": p, "count": n}
                  for (t, p), n in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {
        "data": shown_path(data), "split": split or "all",
        "model": shown_path(models[0]) if len(models) == 1 else [shown_path(m) for m in models],
        "profile": shown_path(profile) if profile else None, "crops": len(truth),
        "top1": round(float(correct.mean()), 5) if len(truth) else None,
        "min_class_top1": min((v["top1"] for v in per_class.values()), default=None),
        "top1_normal_boxes": round(float(correct[normal].mean()), 5) if normal.any() else None,
        "broken_boxes": int((~normal).sum()), "broken_boxes_wrong": int((~correct[~normal]).sum()),
        "per_class": per_class, "confusions": confusions, "errors": worst,
        "seconds": round(time.time() - started, 1), "classes": classes, "matrix": matrix.tolist(),
    }


def draw_matrix(classes: list[str], matrix: np.ndarray, path: Path) -> None:
    """Row-normalised confusion matrix as a PNG: diagonal in green, errors in red, counts written in the cells."""
    cell, margin = 22, 44
    n = len(classes)
    size = margin + n * cell + 4
    canvas = np.full((size, size, 3), 255, np.uint8)
    totals = matrix.sum(axis=1, keepdims=True)
    share = np.divide(matrix, np.maximum(totals, 1))
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(n):
        for j in range(n):
            x, y = margin + j * cell, margin + i * cell
            if matrix[i, j]:
                v = float(share[i, j])
                colour = (int(255 * (1 - v)), 255, int(255 * (1 - v))) if i == j else \
                    (int(255 * (1 - max(v, 0.15))), int(255 * (1 - max(v, 0.15))), 255)
                cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
                text = str(int(matrix[i, j]))
                scale = 0.28 if len(text) > 2 else 0.33
                cv2.putText(canvas, text, (x + 2, y + cell - 7), font, scale, (0, 0, 0), 1, cv2.LINE_AA)
            cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), (220, 220, 220), 1)
    for k, name in enumerate(classes):
        label = name[:4]
        cv2.putText(canvas, label, (2, margin + k * cell + cell - 7), font, 0.33, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(canvas, label, (margin + k * cell + 2, margin - 6), font, 0.3, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(canvas, "truth \\ predicted", (2, 14), font, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), canvas)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(parser)
    parser.add_argument("--model", type=Path, action="append",
                        help="classifier ONNX (default: the shipped one; with --profile, the file it was built for); "
                        "more than once: the mean of their readings")
    parser.add_argument("--png", type=Path, default=None, help="confusion matrix image (default: beside --json)")
    args = parser.parse_args(argv)
    try:
        # with a profile and no --model: the classifier file the profile was built for (vision.classify)
        default = [None] if args.profile else [DEFAULT_MODEL]
        result = evaluate(args.data, args.model or default, args.split, args.limit, args.profile)
    except FanscanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{result['crops']} crops from {args.data}: top-1 {result['top1']:.4f} "
          f"(lowest class {result['min_class_top1']:.4f}) in {result['seconds']} s")
    print(f"  {result['broken_boxes']} boxes over 3x longer than wide (photos squeezed upstream), "
          f"{result['broken_boxes_wrong']} "
          f"of them misread; top-1 on the other boxes {result['top1_normal_boxes']:.4f}")
    for name, value in result["per_class"].items():
        print(f"  {name:>5}  {value['top1']:.4f}  (n={value['n']})")
    print("top confusions (truth -> predicted: count):")
    for item in result["confusions"][:15]:
        print(f"  {item['truth']:>5} -> {item['predicted']:<5} {item['count']}")
    png = args.png or (args.json.with_suffix(".png") if args.json else Path("runs") / "classifier_confusion.png")
    draw_matrix(result["classes"], np.array(result["matrix"]), png)
    print(f"confusion matrix: {png}")
    if args.json:
        write_json(args.json, result, indent=1)
        print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
