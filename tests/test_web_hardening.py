"""Hostile or careless requests to `fanscan serve` get a one-line 4xx, never a 500, and cost little (issue 20,
items 7, 8 and 15's server points)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

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
