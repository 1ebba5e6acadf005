"""A real Label Studio round trip: `fanscan label predict` → Label Studio → its JSON export → `fanscan label import`.

    python benchmarks/label_studio_roundtrip.py                          # label-studio found on PATH
    python benchmarks/label_studio_roundtrip.py --label-studio /work/lsvenv/bin/label-studio
    FANSCAN_LABEL_STUDIO=/path/to/label-studio python benchmarks/label_studio_roundtrip.py

Label Studio has heavy pins of its own: install it in a venv of its own (`python3 -m venv lsvenv &&
lsvenv/bin/pip install label-studio`), never into fanscan's. Without it the script says so and exits 0.

What it does, in a temporary folder that it removes afterwards:
1. links the photos (default `datasets/samples/images`) into `photos/` and runs `fanscan label predict` on them, with
   Label Studio's local-files URLs; adds one task of its own with turned boxes (the pipeline's boxes are upright,
   so without it a turn would never travel);
2. starts Label Studio on 127.0.0.1 with its SQLite default in the temporary folder (LABEL_STUDIO_BASE_DATA_DIR),
   a user and a legacy API token given on its command line, sign-up without a link off, local-files serving on;
3. through the API: creates a project with `fanscan label config`, connects `photos/` as local storage (Label
   Studio serves a local file only under a storage connection), imports the tasks, checks that a photo is served,
   turns every prediction into an annotation (as a labeller pressing "accept"), exports JSON;
4. `fanscan label import` on the export twice: finding the photos through the local-files paths, and by name with
   `--images` (as for an export from another machine);
5. compares the imported YOLO boxes with the pipeline's own boxes (`Pipeline.propose`, the same photos) and with the
   turned boxes' enclosing boxes computed here: every box must come back, with the same label, within 0.5 px.

Writes `benchmarks/results/label_studio_roundtrip.json`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from fanscan.vision.pipeline import Pipeline
from fanscan.vision.yolo_data import read_class_names, read_labels
from results_file import ROOT, write_json

from fanscan.labels.classes import CLASS_NAMES

TOKEN = "fanscan-roundtrip-token-0123456789"
TOLERANCE_PX = 0.5
TURNED_NAME = "turned.jpg"
# Boxes of the extra task: (label, centre x, centre y, width, height, turn in degrees) on a copy of the first photo.
TURNED_BOXES = [("5m", 100.0, 120.0, 40.0, 56.0, 90.0), ("E", 220.0, 200.0, 40.0, 56.0, 17.5),
                ("a", 320.0, 300.0, 42.0, 58.0, 305.0)]


def find_label_studio(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("FANSCAN_LABEL_STUDIO"), shutil.which("label-studio")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Api:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def call(self, method: str, path: str, body=None, raw: bool = False):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            payload = response.read()
            return (payload, response.headers.get("Content-Type", "")) if raw else json.loads(payload or b"null")


def wait_until_up(api: Api, process: subprocess.Popen, log: Path, limit_s: float) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < limit_s:
        if process.poll() is not None:
            raise SystemExit(f"label-studio exited ({process.returncode}); its log: {log}\n"
                             + log.read_text(errors="replace")[-2000:])
        try:
            with urllib.request.urlopen(api.base + "/health", timeout=5) as response:
                if response.status == 200:
                    return time.perf_counter() - started
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(2)
    raise SystemExit(f"label-studio did not answer within {limit_s:.0f} s; its log: {log}")


def turned_region(label: str, cx: float, cy: float, w: float, h: float, turn: float, width: int, height: int):
    """Label Studio's region for a box turned by `turn` degrees about its centre: top-left corner before the turn,
    turned about that corner (clockwise, y down)."""
    t = math.radians(turn)
    x = cx - (w / 2) * math.cos(t) + (h / 2) * math.sin(t)
    y = cy - (w / 2) * math.sin(t) - (h / 2) * math.cos(t)
    value = {"x": 100 * x / width, "y": 100 * y / height, "width": 100 * w / width, "height": 100 * h / height,
             "rotation": turn, "rectanglelabels": [label]}
    return {"id": f"r{len(label)}{int(turn)}", "type": "rectanglelabels", "from_name": "tile", "to_name": "image",
            "original_width": width, "original_height": height, "image_rotation": 0, "value": value}


def enclosing(cx: float, cy: float, w: float, h: float, turn: float) -> tuple[float, float, float, float]:
    t = math.radians(turn)
    half_w = abs(w * math.cos(t)) / 2 + abs(h * math.sin(t)) / 2
    half_h = abs(w * math.sin(t)) / 2 + abs(h * math.cos(t)) / 2
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def expected_boxes(photos: list[Path]) -> dict[str, list[tuple[str, tuple[float, ...]]]]:
    """The pipeline's own tiles (label, x0, y0, x1, y1) per photo, `none` and `back` left out as fanscan does."""
    pipeline = Pipeline()
    expected = {}
    for photo in photos:
        proposal = pipeline.propose(photo)
        expected[photo.name] = [
            (tile.tile, (min(x for x, _ in tile.quad), min(y for _, y in tile.quad),
                         max(x for x, _ in tile.quad), max(y for _, y in tile.quad)))
            for tile in proposal.tiles if tile.tile in CLASS_NAMES]
    return expected


def imported_boxes(dataset: Path, sizes: dict[str, tuple[int, int]]) -> dict[str, list[tuple[str, tuple]]]:
    names = read_class_names(dataset / "data.yaml")
    boxes = {}
    for image in sorted((dataset / "images").iterdir()):
        width, height = sizes[image.name]
        boxes[image.name] = [(names[b.class_index], b.to_pixels(width, height))
                             for b in read_labels(dataset / "labels" / f"{image.stem}.txt")]
    return boxes


def compare(expected: dict, got: dict) -> dict:
    """Each expected box matched to the nearest imported box of the same label on the same photo."""
    lost, worst, matched, extra = [], 0.0, 0, 0
    for name, boxes in expected.items():
        left = list(got.get(name, []))
        for label, box in boxes:
            options = [(max(abs(a - b) for a, b in zip(box, other, strict=True)), i)
                       for i, (other_label, other) in enumerate(left) if other_label == label]
            if not options:
                lost.append(f"{name}: {label} at {[round(v, 1) for v in box]}")
                continue
            distance, index = min(options)
            if distance > TOLERANCE_PX:
                lost.append(f"{name}: {label} off by {distance:.2f} px")
            worst = max(worst, distance)
            matched += 1
            left.pop(index)
        extra += len(left)
    return {"boxes_expected": sum(len(b) for b in expected.values()), "boxes_matched": matched,
            "boxes_lost_or_off": lost, "boxes_extra": extra, "max_coordinate_difference_px": round(worst, 6)}


def fanscan(*args: str, env: dict | None = None) -> tuple[str, str]:
    """(stdout, stderr) of a fanscan command; a failure ends the run."""
    result = subprocess.run([sys.executable, "-m", "fanscan.cli", *args], capture_output=True, text=True,
                            env=env, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"fanscan {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout, result.stderr


def summary_line(log: str) -> str:
    """The `fanscan label` summary line of a run's stderr."""
    return next((line.strip() for line in log.splitlines() if "boxes read" in line), "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label-studio", help="the label-studio executable (else $FANSCAN_LABEL_STUDIO, PATH)")
    parser.add_argument("--photos", type=Path, default=ROOT / "datasets" / "samples" / "images")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "label_studio_roundtrip.json")
    parser.add_argument("--start-timeout", type=float, default=600.0, help="seconds to wait for the server")
    args = parser.parse_args(argv)
    executable = find_label_studio(args.label_studio)
    if executable is None:
        print("skipped: no label-studio executable (--label-studio PATH, $FANSCAN_LABEL_STUDIO, or on PATH)")
        return 0

    work = Path(tempfile.mkdtemp(prefix="fanscan-ls-"))
    process = None
    timings: dict[str, float] = {}
    try:
        photos_dir = work / "photos"
        photos_dir.mkdir()
        photos = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        for photo in photos:
            shutil.copy2(photo, photos_dir / photo.name)
        env = {**os.environ, "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(work)}

        started = time.perf_counter()
        _, predict_log = fanscan("label", "predict", str(photos_dir), "--out", str(work / "tasks.json"), env=env)
        timings["predict_s"] = time.perf_counter() - started
        tasks = json.loads((work / "tasks.json").read_text())
        import cv2

        shutil.copy2(photos[0], photos_dir / TURNED_NAME)

        turned_height, turned_width = cv2.imread(str(photos_dir / TURNED_NAME)).shape[:2]
        tasks.append({"data": {"image": f"/data/local-files/?d=photos/{TURNED_NAME}"}, "predictions": [
            {"model_version": "turned", "result": [turned_region(*b, turned_width, turned_height)
                                                   for b in TURNED_BOXES]}]})
        sent_regions = sum(len(t["predictions"][0]["result"]) for t in tasks)

        data_dir = work / "ls-data"
        ls_env = {**env, "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir), "LOCAL_FILES_SERVING_ENABLED": "true",
                  "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
                  "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true"}
        port = free_port()
        log = work / "label-studio.log"
        with open(log, "w") as log_stream:
            process = subprocess.Popen(
                [executable, "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port),
                 "--username", "fanscan@example.com", "--password", "fanscan-roundtrip", "--user-token", TOKEN,
                 "--enable-legacy-api-token"],
                env=ls_env, stdout=log_stream, stderr=subprocess.STDOUT, cwd=work, start_new_session=True)
        api = Api(port)
        timings["server_start_s"] = wait_until_up(api, process, log, args.start_timeout)
        version = api.call("GET", "/api/version").get("release")

        started = time.perf_counter()
        config, _ = fanscan("label", "config")
        project = api.call("POST", "/api/projects", {"title": "fanscan round trip", "label_config": config})
        api.call("POST", "/api/storages/localfiles", {"project": project["id"], "path": str(photos_dir),
                                                      "use_blob_urls": False, "title": "photos"})
        imported = api.call("POST", f"/api/projects/{project['id']}/import", tasks)
        first_url = tasks[0]["data"]["image"]
        payload, content_type = api.call("GET", first_url, raw=True)
        predictions = api.call("GET", f"/api/predictions?project={project['id']}")
        for prediction in predictions:
            api.call("POST", f"/api/tasks/{prediction['task']}/annotations/", {
                "result": prediction["result"], "was_cancelled": False, "ground_truth": False,
                "parent_prediction": prediction["id"], "lead_time": 0})
        export, _ = api.call("GET", f"/api/projects/{project['id']}/export?exportType=JSON", raw=True)
        (work / "export.json").write_bytes(export)
        timings["api_s"] = time.perf_counter() - started
        exported = json.loads(export)
        exported_regions = sum(len(a["result"]) for t in exported for a in t["annotations"])

        started = time.perf_counter()
        _, import_log = fanscan("label", "import", str(work / "export.json"), "--out", str(work / "dataset"), env=env)
        timings["import_s"] = time.perf_counter() - started
        plain_env = {k: v for k, v in os.environ.items() if k != "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT"}
        fanscan("label", "import", str(work / "export.json"), "--out", str(work / "dataset-by-name"),
                "--images", str(photos_dir), env=plain_env)

        sizes = {}
        for path in photos_dir.iterdir():
            height, width = cv2.imread(str(path)).shape[:2]
            sizes[path.name] = (width, height)
        expected = expected_boxes([photos_dir / p.name for p in photos])
        expected[TURNED_NAME] = [(label, enclosing(cx, cy, w, h, turn)) for label, cx, cy, w, h, turn in TURNED_BOXES]
        by_path = compare(expected, imported_boxes(work / "dataset", sizes))
        by_name = compare(expected, imported_boxes(work / "dataset-by-name", sizes))
        ok = (not by_path["boxes_lost_or_off"] and not by_name["boxes_lost_or_off"]
              and by_path["boxes_matched"] == by_path["boxes_expected"] and exported_regions == sent_regions)
        result = {
            "ok": ok,
            "label_studio_version": version,
            "photos": len(photos) + 1,
            "tasks_sent": len(tasks),
            "regions_sent": sent_regions,
            "tasks_imported_by_label_studio": imported.get("task_count"),
            "predictions_turned_into_annotations": len(predictions),
            "tasks_exported": len(exported),
            "regions_exported": exported_regions,
            "photo_served": {"url": first_url, "content_type": content_type, "bytes": len(payload)},
            "import_found_photos_by_local_files_path": by_path,
            "import_found_photos_by_name_with_images": by_name,
            "tolerance_px": TOLERANCE_PX,
            "fanscan_predict_summary": summary_line(predict_log),
            "fanscan_import_summary": summary_line(import_log),
            "timings_s": {k: round(v, 2) for k, v in timings.items()},
        }
        write_json(args.json, result)
        print(json.dumps(result, indent=2, ensure_ascii=False))
        print(f"{'PASS' if ok else 'FAIL'}: {by_path['boxes_matched']}/{by_path['boxes_expected']} boxes back "
              f"through Label Studio {version}, largest difference {by_path['max_coordinate_difference_px']:.4f} px "
              f"(by name: {by_name['boxes_matched']}/{by_name['boxes_expected']}); JSON: {args.json}")
        return 0 if ok else 1
    finally:
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
