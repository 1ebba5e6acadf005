"""Speed of the phone page in real Chromium (Debian's, headless, 390x844) against `fanscan serve` on 127.0.0.1:
photo chosen -> tiles shown, for the 640-px sample photo and for a 12-MP photo, and tile fix -> new reading.

    python benchmarks/web_speed.py [--repeat 7] [--json benchmarks/results/web_speed.json]

`page_ms` is measured by the page itself (performance.now() from the file input's change event to the frame after
the outlines are drawn, the photo decoded by the browser for display; `window.fanscanTimings`); `server_ms` is the
server's own time for the request (its `Server-Timing` header: from the request's arrival, upload included, to the
response) and `server_cpu_ms` the CPU time the server process spent on it (all threads; on a machine shared with
other jobs the wall times grow with the load average, recorded beside them, the CPU times much less).
The 12-MP photo is a sample photo upscaled to 4000 x 3000 and saved as JPEG (quality 92) in a temporary
folder, as in benchmarks/vision_speed.py. Where the server's time goes: `server_split_median` per request (the
pipeline's stages from the proposal's own timings; the rest is receiving the upload, decoding and scaling the photo
and the reply), and `server_breakdown_12mp` the same steps on that file in this process, decoding timed apart.
Medians after one warm-up run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import cv2
from big_photo import write_12mp_copy
from fanscan.vision.load import load_image
from fanscan.vision.pipeline import default_pipeline
from results_file import ROOT, write_json

from fanscan.web.local_server import CHROMIUM_ARGS, PHONE_VIEWPORT, chromium_path, running_server

SAMPLE = ROOT / "datasets" / "samples" / "images" / "hand_001.jpg"
# hand_001 reads 999m 678p 789s WWW EE; tile 11 is a W. Fixing it to E and back keeps a complete hand each time.
FIX_TILE, FIX_FACES = 11, ("E", "W")
# How often the benchmark looks for the page's timing, in ms. Not on every animation frame (Playwright's default):
# that makes the page render 60 frames a second, CPU a real user's idle page does not take from the server beside
# it. The page times itself (performance.now()), so the polling does not enter the figures.
POLL_MS = 50


def make_12mp(folder: Path) -> Path:
    return write_12mp_copy(SAMPLE, folder / "hand_001_12mp.jpg")


def median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def summary(runs: list[dict]) -> dict:
    return {"runs": len(runs), "page_ms_median": median([r["ms"] for r in runs]),
            "server_ms_median": median([r["server_ms"] for r in runs]),
            "server_cpu_ms_median": median([r["server_cpu_ms"] for r in runs]),
            # the least disturbed run: on a shared machine the closest to the cost of the work itself
            "page_ms_min": round(min(r["ms"] for r in runs), 1), "server_ms_min": min(r["server_ms"] for r in runs),
            "page_ms": [round(r["ms"], 1) for r in runs], "server_ms": [r["server_ms"] for r in runs],
            "server_cpu_ms": [r["server_cpu_ms"] for r in runs], "load_average_1min": round(os.getloadavg()[0], 2),
            **work_after_upload(runs)}


def work_after_upload(runs: list[dict]) -> dict:
    """The server's own work on a photo request: its time from the upload's last byte to the response (the time
    before that is the upload arriving at the pace the browser sends it, on this machine while it also decodes the
    photo for display)."""
    if not all(r.get("server_upload_ms") is not None for r in runs):
        return {}
    return {"server_upload_ms_median": median([r["server_upload_ms"] for r in runs]),
            "server_work_ms_median": median([r["server_ms"] - r["server_upload_ms"] for r in runs]),
            "server_work_ms": [round(r["server_ms"] - r["server_upload_ms"], 1) for r in runs]}


def page_with_photo(browser, url: str, photo: Path):
    """A fresh phone-sized page of the app that has chosen `photo` and drawn its tiles: (context, page)."""
    context = browser.new_context(viewport=PHONE_VIEWPORT, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=yes]")
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_function("window.fanscanTimings.some(t => t.what === 'photo')", timeout=60000, polling=POLL_MS)
    return context, page


def photo_runs(browser, url: str, photo: Path, repeat: int) -> dict:
    """Fresh page each run: choose the photo, wait for the outlines; the page's and the server's times."""
    runs = []
    for _ in range(repeat + 1):
        context, page = page_with_photo(browser, url, photo)
        runs.append(page.evaluate("window.fanscanTimings.find(t => t.what === 'photo')"))
        tiles = page.locator("#overlay g").count()
        context.close()
    runs = runs[1:]
    # The server's time split, per request: the pipeline's stages (after decoding) as the proposal reports them,
    # and the rest (receiving the upload, decoding and scaling the photo, JSON) as server_ms minus their total.
    stages = [k for k in runs[0]["pipeline_ms"] if k not in ("load", "total")]
    split = {f"{k}_ms": median([r["pipeline_ms"][k] for r in runs]) for k in stages}
    split["upload_decode_and_reply_ms"] = median([r["server_ms"] - r["pipeline_ms"]["total"] for r in runs])
    return {"photo": photo.name, "bytes": photo.stat().st_size, "tiles_shown": tiles, **summary(runs),
            "server_split_median": split}


def fix_runs(browser, url: str, photo: Path, repeat: int) -> dict:
    """One page: tap tile 11, choose a face from the palette, wait for the new reading; alternately E and W."""
    context, page = page_with_photo(browser, url, photo)
    for n in range(repeat + 1):
        page.locator(f"#tile-strip button[data-number='{FIX_TILE}']").tap()
        page.locator(f"#palette-faces button[data-tile='{FIX_FACES[n % 2]}']").tap()
        page.wait_for_function(f"window.fanscanTimings.filter(t => t.what === 'fix').length > {n}", polling=POLL_MS)
    runs = page.evaluate("window.fanscanTimings.filter(t => t.what === 'fix')")[1:]
    context.close()
    return {"photo": photo.name, **summary(runs)}


def server_breakdown(photo: Path, repeat: int) -> dict:
    """The server's work on one photo, step by step, in this process: file -> pixels (coarse first, as the server
    decodes it: `vision.load`), then the pipeline."""
    pipeline = default_pipeline()
    loads, proposals, stages, cpu = [], [], [], []
    for _ in range(repeat + 1):
        cpu_started = time.process_time()
        started = time.perf_counter()
        loaded = load_image(photo, coarse_first=True)
        loads.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        proposal = pipeline.propose(loaded)
        proposals.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
        stages.append(proposal.timings_ms)
    stage_names = [k for k in stages[0] if k not in ("load", "total", "coarse_look")]
    started = time.perf_counter()
    full = cv2.imread(str(photo))
    decode_full_ms = (time.perf_counter() - started) * 1000
    return {"load_and_scale_ms": median(loads[1:]), "working_size": f"{loaded.image.shape[1]}x{loaded.image.shape[0]}",
            "read_at_the_coarse_size": "coarse_look" not in stages[-1] and loaded.finer is not None,
            "decode_full_resolution_ms": round(decode_full_ms, 1), "full_size": f"{full.shape[1]}x{full.shape[0]}",
            "pipeline_ms": median(proposals[1:]), "load_and_pipeline_cpu_ms": median(cpu[1:]),
            "pipeline_stages_ms": {k: median([s[k] for s in stages[1:]]) for k in stage_names}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "web_speed.json"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as folder, running_server() as url, sync_playwright() as playwright:
        big = make_12mp(Path(folder))
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        result = {
            "what": "photo chosen -> tiles shown, and tile fix -> new reading, in headless Chromium at 390x844 "
                    "against fanscan serve on 127.0.0.1 (medians)",
            "targets": {"photo_12mp_page_ms": 500, "photo_12mp_server_ms": 100, "fix_page_ms": 200},
            "photo_640": photo_runs(browser, url, SAMPLE, args.repeat),
            "photo_12mp": photo_runs(browser, url, big, args.repeat),
            "fix": fix_runs(browser, url, SAMPLE, args.repeat),
            "server_breakdown_12mp": server_breakdown(big, args.repeat),
            "chromium": browser.version,
        }
        browser.close()
    result.update(cpu_count=os.cpu_count(), load_average=round(os.getloadavg()[0], 2),
                  onnxruntime_threads={"detector": min(2, os.cpu_count() or 1), "classifier": 1},
                  python=platform.python_version(), opencv=cv2.__version__)
    write_json(args.json, result)
    for key in ("photo_640", "photo_12mp", "fix"):
        r = result[key]
        work = f", of which the upload {r['server_upload_ms_median']} ms" if "server_upload_ms_median" in r else ""
        print(f"{key}: page {r['page_ms_median']} ms (min {r['page_ms_min']}), server {r['server_ms_median']} ms{work} "
              f"(min {r['server_ms_min']}, cpu {r['server_cpu_ms_median']} ms), load average {r['load_average_1min']}")
    print("12 MP on the server:", result["server_breakdown_12mp"])


if __name__ == "__main__":
    main()
