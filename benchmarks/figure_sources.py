"""Where the README's and the model cards' figures come from: the result files, the command behind each, and the
small formatting helpers every block shares (`benchmarks/readme_figures.py` writes the blocks)."""

from __future__ import annotations

import json

from results_file import ROOT

RESULTS = ROOT / "benchmarks" / "results"


DATA = "../shared/data/chinese-mahjong-v4"
# The command behind each result file (the README shows them; rerunning one refreshes its JSON).


COMMANDS = {
    "rules_margin_dev": "python benchmarks/rules_margin_sweep.py",
    "evaluation_dev": f"python benchmarks/evaluate.py --data {DATA}/train --split dev --turned-copies "
                      "--json benchmarks/results/evaluation_dev.json",
    "evaluation_test": f"python benchmarks/evaluate.py --data {DATA}/test "
                       "--json benchmarks/results/evaluation_test.json",
    "detection_test": f"python benchmarks/eval_detection.py --data {DATA}/test "
                      "--json benchmarks/results/detection_test.json",
    "classifier_dev": f"python benchmarks/eval_classifier.py --data {DATA}/train --split dev "
                      "--json benchmarks/results/classifier_dev.json",
    "classifier_test": f"python benchmarks/eval_classifier.py --data {DATA}/test "
                       "--json benchmarks/results/classifier_test.json",
    "hands_samples": "python benchmarks/eval_hands.py --json benchmarks/results/hands_samples.json",
    "vision_speed": "python benchmarks/vision_speed.py --threads 1 2 --repeat 40 "
                    "--json benchmarks/results/vision_speed.json",
    "dev_split": "python benchmarks/dev_split.py --json benchmarks/results/dev_split.json",
    "evaluation_dev_squeezed_before": "the squeezed evaluation before the search (vision/aspect.py)",
    "evaluation_all": "python benchmarks/evaluate.py --all --json benchmarks/results/evaluation_all.json "
                      "--markdown benchmarks/results/evaluation_all.md",
    "evaluation_all_before": "the same with the detector and pipeline of the release before (kept as "
                             "benchmarks/results/evaluation_all_before.json)",
    "evaluation_dev_squeezed": f"python benchmarks/evaluate.py --data {DATA}/train --split dev --squeeze "
                               "--turned-copies --json benchmarks/results/evaluation_dev_squeezed.json",
    "large_tiles_dev": f"python benchmarks/eval_large_tiles.py --data {DATA}/train "
                       "--json benchmarks/results/large_tiles_dev.json",
    "large_tiles_dev_no_scale_pass": f"python benchmarks/eval_large_tiles.py --data {DATA}/train --no-scale-pass "
                                     "--json benchmarks/results/large_tiles_dev_no_scale_pass.json",
    "backs_sideways_test": f"python benchmarks/eval_backs_sideways.py --data {DATA}/test "
                           "--json benchmarks/results/backs_sideways_test.json",
    "hand_apart": f"python benchmarks/eval_hand_apart.py --data {DATA}/train",
    "web_speed": "python benchmarks/web_speed.py --repeat 9",
    "batch_throughput": "python benchmarks/batch_throughput.py",
    "batch_memory": "python benchmarks/batch_memory.py --runs 5 --copies 13",
    "batch_memory_workers": "python benchmarks/batch_memory.py --workers 2 --runs 3 --copies 13",
    "compare_batch_memory": "python benchmarks/compare_commits.py --against 34acc50 --rounds 3 -- batch_memory "
                            "--runs 2 --copies 13",
    "calibration_curve": "python benchmarks/calibration_curve.py",
    "learning_curve": "python benchmarks/learning_curve.py",
    "calibration_speed": "python benchmarks/calibration_speed.py",
    "label_studio_roundtrip": "python benchmarks/label_studio_roundtrip.py --label-studio PATH",
    "train_classifier_small": "python benchmarks/train_classifier_small.py "
                              "--json benchmarks/results/train_classifier_small.json",
    "train_classifier_small_recoloured": "python benchmarks/train_classifier_small.py --recolour "
                                         "--json benchmarks/results/train_classifier_small_recoloured.json",
    "scoring": "python benchmarks/scoring.py",
    "scoring-hk": "python benchmarks/scoring.py --rules hk --out benchmarks/results/scoring-hk.json",
    "differential": "nice python benchmarks/differential.py -n 150000 --chunk 25000",
    "backs_sideways_dev": f"python benchmarks/eval_backs_sideways.py --data {DATA}/train --split dev "
                          "--json benchmarks/results/backs_sideways_dev.json",
    "backs_sideways_dev_no_look": f"python benchmarks/eval_backs_sideways.py --data {DATA}/train --split dev "
                                  "--no-sideways-check --json benchmarks/results/backs_sideways_dev_no_look.json",
    "backs_sideways_test_sideways_look": f"python benchmarks/eval_backs_sideways.py --data {DATA}/test "
                                         "--legacy --json benchmarks/results/backs_sideways_test_sideways_look.json",
    "detection_dev_sideways": f"python benchmarks/eval_detection.py --data {DATA}/train --split dev "
                              "--json benchmarks/results/detection_dev_sideways.json",
    "turned_faces_dev": f"python benchmarks/eval_turned_faces.py --data {DATA}/train --split dev --hands "
                        "--json benchmarks/results/turned_faces_dev.json",
    "classifier_dev_run3": f"python benchmarks/eval_classifier.py --data {DATA}/train --split dev "
                           "--model ../runs/shipped-before-session5.onnx "
                           "--json benchmarks/results/classifier_dev_run3.json",
    "classifier_dev_baseline": f"python benchmarks/eval_classifier.py --data {DATA}/train --split dev "
                               "--model ../runs/classifier-baseline-14k/model.onnx "
                               "--json benchmarks/results/classifier_dev_baseline.json",
    "classifier_dev_candidate": f"python benchmarks/eval_classifier.py --data {DATA}/train --split dev "
                                "--model ../runs/classifier-candidate-14k/model.onnx "
                                "--json benchmarks/results/classifier_dev_candidate.json",
    "classifier_heldout_fonts": f"python benchmarks/eval_heldout_fonts.py --data {DATA}/train "
                                "--model ../runs/shipped-before-session5.onnx "
                                "--model ../runs/classifier-baseline-14k/model.onnx "
                                "--model ../runs/classifier-candidate-14k/model.onnx "
                                "--json benchmarks/results/classifier_heldout_fonts.json",
    "classifier_speed": "python benchmarks/classifier_speed.py --json benchmarks/results/classifier_speed.json",
    "sideways_turned_speed": "python benchmarks/sideways_turned_speed.py "
                             "--json benchmarks/results/sideways_turned_speed.json",
    "sideways_turned_speed_worst": "python benchmarks/sideways_turned_speed.py --photo A_DEV_ROW_PHOTO "
                                   "--json benchmarks/results/sideways_turned_speed_worst.json",
}


def load(name: str) -> dict:
    path = RESULTS / f"{name}.json"
    if not path.exists():
        raise SystemExit(f"error: {path.relative_to(ROOT)} is missing: run `{COMMANDS[name]}`")
    return json.loads(path.read_text(encoding="utf-8"))


def share(count: int, total: int) -> str:
    return f"{count / total:.2f} ({count}/{total})" if total else "—"


def figure(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def points(after: float, before: float) -> str:
    return f"{(after - before) * 100:+.0f} points"


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
