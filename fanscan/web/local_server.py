"""`fanscan serve` in a child process on a free 127.0.0.1 port, for the browser tests, the speed benchmark and the
screenshot script; and how they start Debian's Chromium (headless, no network beyond the app)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE_VIEWPORT = {"width": 390, "height": 844}


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    return CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(rules: str = "mcr", timeout_s: float = 60.0, options: Sequence[str] = ()) -> Iterator[str]:
    """The base URL of a `fanscan serve` started for the duration of the `with` block (stopped afterwards);
    `options`: more flags of `fanscan serve` (`--profile P`, `--save-labels DIR`)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "fanscan.cli", "serve", "--port", str(port), "--rules", rules,
                                *options],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"fanscan serve exited: {process.stderr.read() if process.stderr else ''}")
            try:
                with urllib.request.urlopen(url + "/api/config", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"fanscan serve did not answer on {url} within {timeout_s:.0f} s") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
