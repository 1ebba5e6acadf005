"""Top-1 accuracy of the tile classifier on every labelled box of a YOLO-layout dataset.

    python -m benchmarks.eval_classifier --data ../shared/data/chinese-mahjong-v4/test --json runs/eval_test.json

Each box is cut exactly as the photo pipeline cuts a detection (`vision.crops`, the model's own crop spec,
sideways boxes turned upright) and classified. Prints top-1 overall and per class, the most frequent confusions,
and writes a confusion-matrix PNG (rows: truth, columns: prediction) beside the JSON (or to --png).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

# Run as `python benchmarks/<script>.py`: the project root must come before this folder, whose scoring.py
# would otherwise shadow the `scoring` package.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from fanscan.scoring.errors import FanscanError  # noqa: E402
from fanscan.vision.classify import DEFAULT_MODEL, TileClassifier  # noqa: E402
from fanscan.vision.crops import crop_box  # noqa: E402
from fanscan.vision.dataset_classes import guess_table  # noqa: E402
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names  # noqa: E402

from benchmarks.results_file import write_json  # noqa: E402


def evaluate(data: Path, model: Path, profile: Path | None = None) -> dict:
    classifier = TileClassifier(model, profile=profile)
    spec = classifier.crop_spec
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    classes = list(classifier.classes)
    truth: list[str] = []
    predicted: list[str] = []
    broken: list[bool] = []  # box over 3x longer than wide: a tile of a photo squeezed to 640x640 (reported apart)
    worst: list[dict] = []
    started = time.time()
    images = list(iter_split(data))
    for number, item in enumerate(images, start=1):
        image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise FanscanError(f"{item.image_path}: not a readable image")
        h, w = image.shape[:2]
        crops, labels, boxes = [], [], []
        for box in item.boxes:
            x0, y0, x1, y1 = box.to_pixels(w, h)
            x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(w), x1), min(float(h), y1)
            if x1 - x0 < 1 or y1 - y0 < 1:
                continue
            crops.append(crop_box(image, (x0, y0, x1, y1), spec))
            labels.append(table[names[box.class_index]])
            boxes.append([round(v, 1) for v in (x0, y0, x1, y1)])
            broken.append(max(x1 - x0, y1 - y0) > 3 * min(x1 - x0, y1 - y0))
        if not crops:
            continue
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
        "data": str(data), "model": str(model), "profile": str(profile) if profile else None, "crops": len(truth),
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
    parser.add_argument("--data", type=Path, required=True, help="YOLO-layout split: images/, labels/, data.yaml")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--profile", type=Path, default=None, help="set profile (fanscan calibrate) to apply")
    parser.add_argument("--json", type=Path, default=None, help="write the full result here")
    parser.add_argument("--png", type=Path, default=None, help="confusion matrix image (default: beside --json)")
    args = parser.parse_args(argv)
    try:
        result = evaluate(args.data, args.model, args.profile)
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
