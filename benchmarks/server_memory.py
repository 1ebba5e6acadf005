"""The server's memory under load: rounds of 50 concurrent requests to `fanscan serve` (uploads of the bundled
samples plus a share of hostile ones), its resident memory sampled through each round, and every status counted.

    python benchmarks/server_memory.py --rounds 12 --json benchmarks/results/server_memory.json

The server runs as the user runs it (`python -m fanscan serve --port P`, its own process); the requests come from
threads of this process. Per round: 40 photo uploads (the 20 samples twice), 3 PNGs whose header claims 6,400 x
6,400 pixels (over the server's decode budget), 2 files that are not photos, 3 hand strings of 12 MB (over the body
cap) and 2 proposals nested 100,000 deep. Reported: the peak and end-of-round resident memory (VmRSS, from /proc)
per round, and the statuses; a 5xx anywhere is the failure this measures.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from results_file import ROOT, write_json

SAMPLES = sorted((ROOT / "datasets" / "samples" / "images").glob("*.jpg"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


def requests_of_a_round() -> list[tuple[str, dict]]:
    photos = [("/api/photo", {"files": {"photo": (p.name, p.read_bytes(), "image/jpeg")}}) for p in SAMPLES * 2]
    hostile = [("/api/photo", {"files": {"photo": ("big.png", png_claiming(6400, 6400), "image/png")}})] * 3
    hostile += [("/api/photo", {"files": {"photo": ("x.txt", b"not a photo" * 100, "image/jpeg")}})] * 2
    hostile += [("/api/score", {"content": json.dumps({"hand": "1m" * 6_000_000}),
                                "headers": {"content-type": "application/json"}})] * 3
    hostile += [("/api/revise", {"content": '{"proposal": ' + "[" * 100_000 + "]" * 100_000 + "}",
                                 "headers": {"content-type": "application/json"}})] * 2
    return photos + hostile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "server_memory.json")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "fanscan", "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(base + "/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        rounds, statuses = [], {}
        started_mb = rss_mb(server.pid)
        work = requests_of_a_round()
        with httpx.Client(base_url=base, timeout=120) as client, ThreadPoolExecutor(len(work)) as pool:
            for number in range(args.rounds):
                peak, done = [0.0], threading.Event()

                def sample(peak=peak, done=done) -> None:
                    while not done.is_set():
                        peak[0] = max(peak[0], rss_mb(server.pid))
                        time.sleep(0.02)

                sampler = threading.Thread(target=sample)
                sampler.start()
                clock = time.perf_counter()
                answers = list(pool.map(lambda request: client.post(request[0], **request[1]).status_code, work))
                seconds = time.perf_counter() - clock
                done.set()
                sampler.join()
                for status in answers:
                    statuses[str(status)] = statuses.get(str(status), 0) + 1
                rounds.append({"round": number + 1, "peak_rss_mb": round(peak[0], 1),
                               "end_rss_mb": round(rss_mb(server.pid), 1), "seconds": round(seconds, 2),
                               "server_errors": sum(status >= 500 for status in answers)})
                print(rounds[-1], file=sys.stderr)
    finally:
        server.terminate()
        server.wait(10)
    result = {"requests_per_round": len(work), "rounds": rounds, "statuses": statuses,
              "rss_at_start_mb": round(started_mb, 1), "cpu_count": os.cpu_count(),
              "peak_rss_mb": max(r["peak_rss_mb"] for r in rounds),
              "server_errors": sum(r["server_errors"] for r in rounds)}
    write_json(args.json, result)
    print(json.dumps({k: v for k, v in result.items() if k != "rounds"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
