"""The wheel as a user gets it: build it, install it with its dependencies in a fresh virtual environment outside the
checkout, and run every command once on the bundled samples from an empty folder.

    python .ci/smoke_wheel.py            # what .ci/run does after the test suite; exit 1 on the first failure

Catches what the test suite, run from the checkout, cannot: a module or data file missing from the wheel (the
checkout's files stand in for it there), a dependency missing from pyproject.toml (the checkout's environment has
everything), or a command that needs the current folder to be the checkout. Each command must end with the exit
status expected and no traceback. The `train` extra (torch) is not installed: `train` must then say in one line
what it needs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from wheel_build import build_wheel  # noqa: E402 (the tests' helper: one way to build the wheel)

SAMPLES = ROOT / "datasets" / "samples"
VALID_HAND = "[EEE,2][SSSS,1]WWWNN55pN|EE1000"  # Big Four Winds: scores, meets the minimum
SERVE_WAIT_S = 90


def fail(message: str) -> None:
    print(f"smoke_wheel: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def clean_env() -> dict[str, str]:
    """The environment without anything that points Python at the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def check(argv: list[str], work: Path, expect: tuple[int, ...] = (0,), timeout: int = 300) -> str:
    """Run one command in `work`; its exit status must be one of `expect` and no traceback printed. Its stdout."""
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=clean_env(), capture_output=True, text=True, timeout=timeout,
                          check=False)
    shown = " ".join(Path(a).name if a.startswith("/") else a for a in argv)
    if done.returncode not in expect or "Traceback" in done.stderr + done.stdout:
        fail(f"{shown}: exit {done.returncode} (expected {expect})\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    print(f"  ok ({time.perf_counter() - started:4.1f} s, exit {done.returncode}): {shown}")
    return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post_photo(url: str, photo: Path) -> dict:
    """POST a photo to the server as the page does (multipart form), and its JSON answer."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{photo.name}\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode() + photo.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def check_serve(fanscan: Path, work: Path) -> None:
    """`fanscan serve`: the page answers, one photo is read through the API, Ctrl-C stops it cleanly."""
    port = free_port()
    server = subprocess.Popen([str(fanscan), "serve", "--port", str(port)], cwd=work, env=clean_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVE_WAIT_S
        while True:
            try:
                with urllib.request.urlopen(f"{base}/", timeout=5) as page:
                    if page.status == 200 and b"<html" in page.read().lower():
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    fail(f"serve did not answer on {base}/: {server.communicate(timeout=10)[1][-2000:]}")
                time.sleep(0.5)
        answer = post_photo(f"{base}/api/photo", SAMPLES / "images" / "hand_001.jpg")
        if not answer.get("proposal", {}).get("tiles"):
            fail(f"serve: POST /api/photo read no tiles: {str(answer)[:500]}")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            _, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            fail("serve did not stop on Ctrl-C within 30 s")
    if "Traceback" in err:
        fail(f"serve printed a traceback:\n{err[-2000:]}")
    print(f"  ok: serve (page, POST /api/photo: {len(answer['proposal']['tiles'])} tiles, stopped by Ctrl-C)")


def main() -> int:
    started = time.perf_counter()
    temp = Path(tempfile.mkdtemp(prefix="fanscan-wheel-"))
    try:
        wheel = build_wheel(temp / "build")
        print(f"smoke_wheel: built {wheel.name}")
        venv = temp / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        python, fanscan = venv / "bin" / "python", venv / "bin" / "fanscan"
        installed = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                    f"{wheel}[web]"], capture_output=True, text=True, timeout=900, env=clean_env(),
                                   check=False)
        if installed.returncode:
            fail(f"pip install {wheel.name}[web] in a fresh venv: {installed.stderr[-3000:]}")
        print(f"smoke_wheel: installed with the web extra in a fresh venv ({time.perf_counter() - started:.0f} s)")
        work = temp / "work"
        work.mkdir()
        where = check([str(python), "-c", "import fanscan; print(fanscan.__file__)"], work)
        if not Path(where.strip()).is_relative_to(venv):
            fail(f"fanscan was imported from {where.strip()}, not from the fresh venv")
        check([str(python), "-m", "fanscan", "--version"], work)
        check([str(fanscan), "score", VALID_HAND], work)
        check([str(fanscan), "waits", "[111s,1]2345678999s"], work)
        check([str(fanscan), "rules"], work)
        # A photo's hand may be below the minimum without its context (exit 3): scored either way.
        check([str(fanscan), "photo", str(SAMPLES / "images" / "hand_001.jpg"), "--yes"], work, expect=(0, 3))
        photos = work / "photos"
        photos.mkdir()
        for name in ("hand_001", "hand_003", "hand_007"):
            shutil.copy2(SAMPLES / "images" / f"{name}.jpg", photos)
        check([str(fanscan), "batch", str(photos), "--out", str(work / "scores.csv")], work, expect=(0, 1))
        if len((work / "scores.csv").read_text(encoding="utf-8").splitlines()) != 4:
            fail("batch: the table does not hold a header and three rows")
        check([str(fanscan), "calibrate", str(SAMPLES), "--out", str(work / "set.npz"), "--views", "2",
               "--no-loo"], work)
        check([str(fanscan), "photo", str(SAMPLES / "images" / "hand_003.jpg"), "--yes", "--profile",
               str(work / "set.npz")], work, expect=(0, 3))
        check([str(fanscan), "label", "predict", str(photos), "--out", str(work / "tasks.json")], work)
        check([str(fanscan), "label", "import", str(SAMPLES), "--out", str(work / "imported")], work)
        check([str(fanscan), "train", "--help"], work)
        refused = subprocess.run([str(fanscan), "train", "classifier", "--data", str(SAMPLES)], cwd=work,
                                 env=clean_env(), capture_output=True, text=True, timeout=120, check=False)
        if refused.returncode != 2 or refused.stderr.count("\n") != 1 or "needs torch" not in refused.stderr:
            fail(f"train without the train extra: exit {refused.returncode}, {refused.stderr[-2000:]}")
        print("  ok: fanscan train classifier without torch: one line saying what it needs")
        check_serve(fanscan, work)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    print(f"smoke_wheel: every command ran from the installed wheel in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
