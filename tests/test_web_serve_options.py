"""`fanscan serve --profile` and `--save-labels` through the API: photos are read with the server's set profile as
`fanscan photo --profile` reads them, and a scored photo is kept with its corrected labels only when asked."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fanscan.scoring import parse_hand
from fastapi.testclient import TestClient
from web_helpers import label_of_tile, saved_labels, write_set_profile

from fanscan.cli import main
from fanscan.web.app import create_app
from fanscan.web.local_server import free_port

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "images"
HAND_001 = SAMPLES / "hand_001.jpg"


def upload(path: Path) -> dict:
    return {"photo": (path.name, path.read_bytes(), "image/jpeg")}


def test_photo_is_read_with_the_servers_profile_as_the_photo_command_reads_it(tmp_path, capsys):
    profile = write_set_profile(tmp_path / "fives.npz", "all fives", favour="5p")
    reply = TestClient(create_app(profile=str(profile), profile_name="all fives")).post(
        "/api/photo", files=upload(HAND_001))
    plain = TestClient(create_app()).post("/api/photo", files=upload(HAND_001)).json()
    main(["photo", str(HAND_001), "--json", "--profile", str(profile)])
    expected = json.loads(capsys.readouterr().out)
    read = reply.json()["proposal"]
    assert [t["tile"] for t in read["tiles"]] == [t["tile"] for t in expected["proposal"]["tiles"]]
    assert read["hand"] == expected["proposal"]["hand"] and read["status"] == expected["proposal"]["status"]
    # The profile's bias: the server did use it; never more than four of a kind, so the rest are read `none`.
    tiles = Counter(t["tile"] for t in read["tiles"])
    assert tiles["5p"] == 4 and set(tiles) == {"5p", "none"}
    assert read["hand"] != plain["proposal"]["hand"]


def test_config_names_the_profile_and_says_whether_photos_are_kept(tmp_path):
    plain = TestClient(create_app()).get("/api/config").json()
    assert plain["profile"] is None and plain["save_labels"] is False
    mine = TestClient(create_app(profile="x.npz", profile_name="green set", save_labels=tmp_path)).get(
        "/api/config").json()
    assert mine["profile"] == "green set" and mine["save_labels"] is True


def test_bad_profile_is_one_line_at_start(tmp_path, capsys):
    bad = tmp_path / "broken.npz"
    bad.write_bytes(b"not a zip")
    assert main(["serve", "--port", str(free_port()), "--profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fanscan: error: ") and "broken.npz" in err and err.count("\n") == 1


def test_save_labels_dir_that_is_a_file_is_one_line_at_start(tmp_path, capsys):
    (tmp_path / "taken").write_text("x")
    assert main(["serve", "--port", str(free_port()), "--save-labels", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err
    assert "not a folder" in err and err.count("\n") == 1


def fixed_reading(client: TestClient) -> dict:
    """hand_001 read, then tile 11 (a W) fixed to E, as the page does it."""
    proposal = client.post("/api/photo", files=upload(HAND_001)).json()["proposal"]
    return client.post("/api/revise", json={"proposal": proposal, "fixes": {"11": "E"}}).json()["proposal"]


def test_save_labels_keeps_the_photo_and_the_fixed_reading(tmp_path):
    dataset = tmp_path / "my-tiles"
    client = TestClient(create_app(save_labels=dataset))
    fixed = fixed_reading(client)
    reply = client.post("/api/save-labels", files=upload(HAND_001), data={"proposal": json.dumps(fixed)})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"ok": True, "image": "images/hand_001.jpg", "labels_file": "labels/hand_001.txt",
                            "labels": 14}
    assert sorted(p.name for p in (dataset / "images").iterdir()) == ["hand_001.jpg"]
    assert (dataset / "images" / "hand_001.jpg").read_bytes() == HAND_001.read_bytes()
    labels = saved_labels(dataset, "hand_001", tuple(fixed["image_size"]))
    # the labels are the fixed hand's tiles (999m 678p 789s WW EEE), each at its tile's place
    assert Counter(name for name, _, _ in labels) == Counter(parse_hand("999m678p789sWWEEE").all_tiles())
    for tile in fixed["tiles"]:
        assert label_of_tile(labels, tile["box"]) == tile["tile"]
    assert label_of_tile(labels, fixed["tiles"][10]["box"]) == "E"


def test_save_labels_twice_keeps_two_photos_under_new_names(tmp_path):
    dataset = tmp_path / "ds"
    client = TestClient(create_app(save_labels=dataset))
    fixed = json.dumps(fixed_reading(client))
    names = [client.post("/api/save-labels", files=upload(HAND_001), data={"proposal": fixed}).json()["image"]
             for _ in range(2)]
    assert names == ["images/hand_001.jpg", "images/hand_001-2.jpg"]


def test_without_save_labels_nothing_is_kept(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    client = TestClient(create_app())
    reply = client.post("/api/save-labels", files=upload(HAND_001), data={"proposal": "{}"})
    assert reply.status_code == 409
    assert reply.json()["ok"] is False and "--save-labels" in reply.json()["error"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("photo, proposal, message", [
    (b"nonsense", None, "hand_001.jpg"),
    (None, "{not json", "proposal: not JSON"),
    (None, '{"tiles": []}', "not a hand proposal"),
    (None, "resized", "not the photo it was read from"),
])
def test_save_labels_refuses_what_is_not_a_confirmed_photo(tmp_path, photo, proposal, message):
    dataset = tmp_path / "ds"
    client = TestClient(create_app(save_labels=dataset))
    fixed = fixed_reading(client)
    if proposal == "resized":
        proposal = json.dumps(fixed | {"image_size": [320, 320]})
    files = {"photo": ("hand_001.jpg", photo or HAND_001.read_bytes(), "image/jpeg")}
    reply = client.post("/api/save-labels", files=files, data={"proposal": proposal or json.dumps(fixed)})
    assert reply.status_code == 400
    body = reply.json()
    assert body["ok"] is False and message in body["error"] and "\n" not in body["error"]
    assert not (dataset / "images").exists() or list((dataset / "images").iterdir()) == []


def test_learn_adds_the_confirmed_photo_and_the_next_photos_are_read_with_the_refitted_profile(tmp_path):
    """`serve --learn`: the confirmed reading with a fix joins the profile's history, the background refit writes
    the profile and swaps it in, and the next photo's JSON names it."""
    from fanscan.calibration.learn import read_history

    learned = tmp_path / "table.npz"
    client = TestClient(create_app(learn=str(learned)))
    assert client.get("/api/config").json()["learn"] is True
    first = client.post("/api/photo", files=upload(HAND_001)).json()
    assert first["profile"] is None  # nothing learned yet: the shipped model
    fixed = client.post("/api/revise", json={"proposal": first["proposal"], "fixes": {"1": "9s"}}).json()
    reply = client.post("/api/learn", files=upload(HAND_001), data={"proposal": json.dumps(fixed["proposal"])})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["entry"] == 1 and body["fixed"] >= 1
    assert client.app.state.refitter.wait(120) and client.app.state.refitter.last_error is None
    (entry,) = read_history(learned)
    assert entry.tiles[0] == "9s" and 0 in entry.hard
    again = client.post("/api/photo", files=upload(HAND_001)).json()
    assert again["profile"]["name"] == "table"
    assert again["proposal"]["tiles"][0]["tile"] == "9s"  # the fix outranks the model on the same tile


def test_learn_without_the_option_is_refused(tmp_path):
    reply = TestClient(create_app()).post("/api/learn", files=upload(HAND_001), data={"proposal": "{}"})
    assert reply.status_code == 409 and "--learn" in reply.json()["error"]
