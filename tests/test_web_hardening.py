"""Hostile or careless requests to `fanscan serve` get a one-line 4xx, never a 500, and cost little (issue 20,
items 7, 8 and 15's server points)."""

from __future__ import annotations

import json
import struct
import threading
import time
import zlib
from pathlib import Path

import pytest
from fanscan.vision import load
from fastapi.testclient import TestClient

from fanscan.web import work_gate
from fanscan.web.app import create_app
from fanscan.web.upload_limit import MAX_JSON_BYTES

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "images" / "hand_001.jpg"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def proposal(client) -> dict:
    answer = client.post("/api/photo", files={"photo": (SAMPLE.name, SAMPLE.read_bytes(), "image/jpeg")})
    assert answer.status_code == 200
    return answer.json()["proposal"]


def test_a_hand_string_longer_than_any_hand_is_refused_by_its_length(client):
    answer = client.post("/api/score", json={"hand": "1m" * 5000})
    assert answer.status_code == 422 and "hand" in answer.json()["error"]


def test_a_json_body_larger_than_any_request_is_refused_before_it_is_parsed(client):
    body = json.dumps({"hand": "1m" * (MAX_JSON_BYTES // 2)})
    answer = client.post("/api/score", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]


@pytest.mark.parametrize("quad", [[[float("nan"), 1.0], [2, 1], [2, 3], [1, 3]], [[1, 1]], [[1e308, 0]] * 4, "x"])
def test_revise_with_a_quad_that_is_no_quad_is_one_line(client, proposal, quad):
    bad = json.loads(json.dumps(proposal))
    bad["tiles"][0]["quad"] = quad
    # NaN is not JSON: send it as the page's JSON.stringify never would, through Python's lenient encoder
    body = json.dumps({"proposal": bad, "fixes": {"1": "2m"}})
    answer = client.post("/api/revise", content=body, headers={"content-type": "application/json"})
    assert answer.status_code in (400, 422), answer.text
    assert "\n" not in answer.json()["error"] and "tile 1" in answer.json()["error"]


def test_save_labels_with_a_proposal_nested_1000_deep_is_one_line(tmp_path):
    client = TestClient(create_app(save_labels=tmp_path / "ds"), raise_server_exceptions=False)
    nested = "[" * 100_000 + "]" * 100_000
    answer = client.post("/api/save-labels", files={"photo": (SAMPLE.name, SAMPLE.read_bytes(), "image/jpeg")},
                         data={"proposal": nested})
    assert answer.status_code == 400 and "nested" in answer.json()["error"]


def test_the_api_page_and_the_icon_are_served_here_with_no_page_from_elsewhere(client):
    page = client.get("/docs")
    assert page.status_code == 200 and "/openapi.json" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # offline at the table it still works
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in icon.text
    assert client.get("/openapi.json").json()["paths"]


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims `width` x `height` (what the budget reads), with no pixels to decode."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


def test_a_png_over_the_servers_pixel_budget_is_refused_before_it_is_decoded(client):
    side = int((work_gate.MAX_DECODED_PIXELS + 1) ** 0.5) + 1  # just over the budget, under the loader's 100 MP
    answer = client.post("/api/photo", files={"photo": ("big.png", png_header_only(side, side), "image/png")})
    assert answer.status_code == 400
    assert "more than this server decodes" in answer.json()["error"] and "big.png" in answer.json()["error"]


def test_a_large_jpeg_is_within_the_budget_because_it_decodes_reduced():
    # A 12-MP JPEG is decoded by libjpeg at half its sides (the largest reduction that still leaves 0.8 x 2048 px on
    # the long side): 3 MP held, far under the budget; a PNG of the same size is held whole.
    header = load.Header("jpeg", 4000, 3000, 1)
    assert load.decoded_pixels(header) == 2000 * 1500 < work_gate.MAX_DECODED_PIXELS
    assert load.decoded_pixels(load.Header("png", 4000, 3000, 1)) == 12_000_000


def test_no_more_photos_are_read_at_once_than_the_gate_allows(tmp_path):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(SAMPLE.read_bytes())
    inside, most, lock = [0], [0], threading.Lock()

    def one_request() -> None:
        with work_gate.photo_turn(photo, photo.name):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.05)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=one_request) for _ in range(3 * work_gate.READERS + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == work_gate.READERS


def test_a_connection_that_never_finishes_its_headers_is_closed(monkeypatch):
    import socket

    import uvicorn

    from fanscan.web import header_timeout

    monkeypatch.setattr(header_timeout, "HEADER_TIMEOUT_S", 0.5)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="error",
                            http=header_timeout.HeaderTimeoutProtocol)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as whole:  # a whole request is answered
            whole.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n")
            assert whole.recv(100).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # the headers never end
            started = time.perf_counter()
            assert slow.recv(100) == b""  # closed by the server, not by this side's 5-s timeout
            assert time.perf_counter() - started < 4
    finally:
        server.should_exit = True
        thread.join(10)
