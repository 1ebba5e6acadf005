"""`fanscan serve`'s JSON API through the framework's test client (and a live server for raw path tricks): each
endpoint must give what the command it stands for gives."""

from __future__ import annotations

import contextlib
import csv
import http.client
import io
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient

from fanscan.cli import build_parser, main
from fanscan.web.app import create_app
from fanscan.web.local_server import running_server

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "images"
BIG_FOUR_WINDS = "[EEE,2][SSSS,1]WWWNN55pN|EE1000"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def cli_json(argv: list[str], capsys) -> tuple[int, dict]:
    """What `fanscan ARGV` prints as JSON, and its exit status."""
    status = main(argv)
    out = capsys.readouterr().out
    return status, json.loads(out)


def upload(path: Path, name: str | None = None) -> dict:
    return {"photo": (name or path.name, path.read_bytes(), "image/jpeg")}


def without_timings(photo: dict) -> dict:
    photo = json.loads(json.dumps(photo))
    photo.pop("waits_to_add", None)  # the page's addition (tested below)
    photo["proposal"].pop("timings_ms")
    photo.pop("image")
    photo["proposal"].pop("image")
    return photo


def test_score_gives_98_for_big_four_winds_as_the_command_does(client, capsys):
    reply = client.post("/api/score", json={"hand": BIG_FOUR_WINDS})
    assert reply.status_code == 200
    assert reply.json()["total"] == 98  # the README's worked example
    _, expected = cli_json(["score", BIG_FOUR_WINDS, "--json"], capsys)
    assert reply.json() == expected


def test_score_context_fields_are_the_command_flags(client, capsys):
    hand = "[EEE,2][SSSS,1]WWWNN55pN"
    reply = client.post("/api/score", json={"hand": hand, "self_drawn": True, "seat_wind": "S", "prevalent_wind": "W",
                                            "flowers": "ac", "rules": "hk"})
    _, expected = cli_json(["score", hand, "--json", "--self-drawn", "--seat-wind", "S", "--prevalent-wind", "W",
                            "--flowers", "ac", "--rules", "hk"], capsys)
    assert reply.status_code == 200
    assert reply.json() == expected
    assert expected["context"]["flowers"] == ["a", "c"] and expected["rules"] == "hk"


def test_impossible_context_is_explained_with_the_commands_message(client, capsys):
    hand = "[EEE,2][SSSS,1]WWWNN55pN"
    reply = client.post("/api/score", json={"hand": hand, "robbing_kong": True, "self_drawn": True})
    assert reply.status_code == 400
    assert main(["score", hand, "--robbing-kong", "--self-drawn"]) == 2
    command_error = capsys.readouterr().err.strip()
    assert reply.json() == {"ok": False, "error": command_error.removeprefix("fanscan: error: ")}


@pytest.mark.parametrize("body", [{"hand": "[EEE,2"}, {"hand": "1m", "seat_wind": "X"}, {"hand": "123m", "bogus": 1},
                                  {"hand": BIG_FOUR_WINDS, "discard": True}, {"hand": "123m", "self_drawn": True,
                                                                               "discard": True}, {}])
def test_bad_score_requests_get_a_one_line_json_error(client, body):
    reply = client.post("/api/score", json=body)
    assert reply.status_code in (400, 422)
    error = reply.json()["error"]
    assert reply.json()["ok"] is False and error and "\n" not in error


def test_photo_is_the_same_json_as_photo_json(client, capsys):
    path = SAMPLES / "hand_001.jpg"
    reply = client.post("/api/photo", files=upload(path))
    assert reply.status_code == 200
    status, expected = cli_json(["photo", str(path), "--json"], capsys)
    assert status == 3  # scored: 999m678p789sEWWWE on a discard is below the 8-fan minimum
    assert without_timings(reply.json()) == without_timings(expected)
    assert reply.json()["image"] == reply.json()["proposal"]["image"] == "hand_001.jpg"  # not the temporary copy


def test_photo_rules_field(client, capsys):
    path = SAMPLES / "hand_002.jpg"
    reply = client.post("/api/photo", files=upload(path), data={"rules": "hk"})
    _, expected = cli_json(["photo", str(path), "--json", "--rules", "hk"], capsys)
    assert without_timings(reply.json()) == without_timings(expected)
    assert reply.json()["score"]["rules"] == "hk"


def test_incomplete_photo_keeps_its_proposal_for_fixing(client, capsys):
    """hand_020 shows 14 tiles that are not a hand: `ok` false with the error, as the command's JSON."""
    path = SAMPLES / "hand_020.jpg"
    reply = client.post("/api/photo", files=upload(path))
    status, expected = cli_json(["photo", str(path), "--json"], capsys)
    assert status == 2 and reply.status_code == 200
    assert reply.json()["ok"] is False and reply.json()["proposal"]["tiles"]
    assert without_timings(reply.json())["error"].replace("hand_020.jpg", "X") == \
        without_timings(expected)["error"].replace(str(path), "X")


def corrupt_uploads() -> dict[str, bytes]:
    jpeg = (SAMPLES / "hand_001.jpg").read_bytes()
    png_1x1 = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                            "0000000d4944415478da63f8cfc0f01f0005000201a2dd0ab10000000049454e44ae426082")
    huge_png_header = png_1x1[:16] + (20000).to_bytes(4, "big") * 2 + png_1x1[24:]
    return {"text": b"this is not a photo", "empty": b"", "truncated-jpeg": jpeg[: len(jpeg) // 2],
            "garbled-jpeg": jpeg[:600] + bytes(range(256)) * 40, "1x1-png": png_1x1, "20000x20000-png": huge_png_header,
            "gif": b"GIF89a" + b"\0" * 100}


def test_a_13_tile_photo_comes_with_the_tiles_that_complete_it(client):
    """hand_014 shows 13 tiles, 234m 44p 444s SSS FF (manifest.json): two pairs and three sets, so either pair's tile
    completes it (4p or F). Each comes with the complete hand it makes, that tile won last, which scores."""
    reply = client.post("/api/photo", files=upload(SAMPLES / "hand_014.jpg")).json()
    proposal = reply["proposal"]
    assert proposal["status"] == "ready" and sorted(proposal["hand"].strip()) == sorted("234m44p444sSSSFF")
    assert [w["tile"] for w in reply["waits_to_add"]] == ["4p", "F"]
    for wait in reply["waits_to_add"]:
        assert sorted(wait["hand"]) == sorted("234m44p444sSSSFF" + wait["tile"]) and wait["hand"].endswith(wait["tile"])
        scored = client.post("/api/score", json={"hand": wait["hand"]})
        assert scored.status_code == 200 and scored.json()["ok"] is True


def test_revise_gives_the_waits_once_a_tile_is_taken_out(client):
    """hand_001 reads 999m 678p 789s WWW EE (tiles 10-12 the Ws); with tile 12 not a tile, 999m 678p 789s WW EE
    waits on W or E. A complete reading has nothing to add."""
    first = client.post("/api/photo", files=upload(SAMPLES / "hand_001.jpg")).json()
    assert first["proposal"]["status"] == "complete" and first["waits_to_add"] == []
    assert [t["tile"] for t in first["proposal"]["tiles"][9:]] == ["W", "W", "W", "E", "E"]
    reply = client.post("/api/revise", json={"proposal": first["proposal"], "fixes": {"12": "none"}}).json()
    assert reply["proposal"]["status"] == "ready"
    assert sorted(w["tile"] for w in reply["waits_to_add"]) == ["E", "W"]


@pytest.mark.parametrize("kind", sorted(corrupt_uploads()))
def test_corrupt_photo_gets_a_json_error_never_500(client, kind):
    reply = client.post("/api/photo", files={"photo": (f"{kind}.jpg", corrupt_uploads()[kind], "image/jpeg")})
    assert 400 <= reply.status_code < 500, reply.text
    body = reply.json()
    assert body["ok"] is False and body["error"].startswith(f"{kind}.jpg: ")
    assert "fanscan-upload-" not in body["error"]  # the temporary copy's folder is not shown


def test_photo_without_the_field_is_a_json_error(client):
    reply = client.post("/api/photo", data={"rules": "mcr"})
    assert reply.status_code == 422 and reply.json()["ok"] is False and "photo" in reply.json()["error"]


@pytest.mark.parametrize("megabytes", [26, 64])
def test_upload_over_25_mb_gets_413(client, megabytes):
    reply = client.post("/api/photo", files={"photo": ("big.jpg", b"\xff" * (megabytes * 2**20), "image/jpeg")})
    assert reply.status_code == 413
    assert reply.json()["ok"] is False and "25 MB" in reply.json()["error"]


def test_chunked_upload_without_length_is_counted_and_refused(client):
    def chunks():
        for _ in range(30):
            yield b"\0" * 2**20

    reply = client.post("/api/photo", content=chunks(), headers={"content-type": "multipart/form-data; boundary=x"})
    assert reply.status_code == 413


def test_uploads_leave_nothing_behind(client, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    client.post("/api/photo", files=upload(SAMPLES / "hand_003.jpg"))
    client.post("/api/photo", files={"photo": ("bad.jpg", b"nonsense", "image/jpeg")})
    assert list(tmp_path.iterdir()) == []


def test_revise_is_fix_n_tile(client):
    from fanscan.vision.proposal import HandProposal, revise

    from fanscan.confirm import parse_fixes

    proposal = client.post("/api/photo", files=upload(SAMPLES / "hand_001.jpg")).json()["proposal"]
    assert proposal["tiles"][10]["tile"] == "W"
    reply = client.post("/api/revise", json={"proposal": proposal, "fixes": {"11": "E"}})
    assert reply.status_code == 200
    revised = reply.json()["proposal"]
    terminal = revise(HandProposal.from_dict(proposal), parse_fixes("fix 11 E", len(proposal["tiles"]))).to_dict()
    assert revised == terminal
    # one W read as E: 999m 678p 789s WW EEE, still a complete hand
    assert revised["status"] == "complete"
    assert sorted(revised["hand"]) == sorted("999m678p789sWWEEE")
    assert revised["tiles"][10]["tile"] == "E" and revised["tiles"][10]["confidence"] == 1.0


def test_revise_winning_tile_is_the_commands_winning_tile(client, capsys):
    path = SAMPLES / "hand_001.jpg"
    proposal = client.post("/api/photo", files=upload(path)).json()["proposal"]
    assert proposal["tiles"][0]["tile"] == "7s"
    revised = client.post("/api/revise", json={"proposal": proposal, "winning": 1}).json()["proposal"]
    assert revised["hand"].endswith("7s")
    assert [t["number"] for t in revised["tiles"] if t["role"] == "winning"] == [1]
    scored = client.post("/api/score", json={"hand": revised["hand"], "self_drawn": True}).json()
    _, expected = cli_json(["photo", str(path), "--json", "--yes", "--winning-tile", "7s", "--self-drawn"], capsys)
    assert scored == expected["score"]


@pytest.mark.parametrize("body", [{"proposal": {}, "fixes": {}}, {"proposal": "x"},
                                  {"proposal": None, "fixes": {"1": "7p"}}])
def test_revise_refuses_what_is_not_a_proposal(client, body):
    reply = client.post("/api/revise", json=body)
    assert reply.status_code in (400, 422) and reply.json()["ok"] is False


def test_revise_refuses_a_proposal_of_too_many_tiles(client):
    from fanscan.web.api import MAX_REVISE_TILES

    proposal = client.post("/api/photo", files=upload(SAMPLES / "hand_001.jpg")).json()["proposal"]
    proposal["tiles"] = proposal["tiles"] * (MAX_REVISE_TILES // len(proposal["tiles"]) + 1)
    reply = client.post("/api/revise", json={"proposal": proposal, "fixes": {"1": "E"}})
    assert reply.status_code == 400 and f"at most {MAX_REVISE_TILES}" in reply.json()["error"]


def test_revise_refuses_bad_fixes(client):
    proposal = client.post("/api/photo", files=upload(SAMPLES / "hand_001.jpg")).json()["proposal"]
    for fixes, words in (({"99": "7p"}, "no tile 99"), ({"1": "7x"}, "not a tile id")):
        reply = client.post("/api/revise", json={"proposal": proposal, "fixes": fixes})
        assert reply.status_code == 400 and words in reply.json()["error"]
    reply = client.post("/api/revise", json={"proposal": proposal, "winning": 99})
    assert reply.status_code == 400


def test_batch_rows_and_tables_are_those_of_fanscan_batch(client, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    names = ["hand_002.jpg", "hand_020.jpg"]
    for name in names:
        shutil.copy(SAMPLES / name, folder / name)
    (folder / "broken.jpg").write_bytes(b"not a photo")
    out = tmp_path / "cli.csv"
    assert main(["batch", str(folder), "--out", str(out), "--self-drawn", "--seat-wind", "S"]) == 1
    capsys.readouterr()
    rows = []
    for path in sorted(folder.iterdir()):
        reply = client.post("/api/batch/row", files=upload(path),
                            data={"context": json.dumps({"self_drawn": True, "seat_wind": "S"})})
        assert reply.status_code == 200
        rows.append(reply.json())
    assert [r["ok"] for r in rows] == [False, True, False]
    table = client.post("/api/batch/table", json={"rows": rows, "format": "csv"})
    assert table.status_code == 200 and "scores.csv" in table.headers["content-disposition"]

    def without_ms(text: str) -> list[dict]:
        return [{k: v for k, v in row.items() if k != "ms"} for row in csv.DictReader(io.StringIO(text))]

    # the command names a photo by its path, the page by its file name
    command_table = out.read_text(encoding="utf-8").replace(f"{folder}/", "")
    assert without_ms(table.text) == without_ms(command_table)
    lines = client.post("/api/batch/table", json={"rows": rows, "format": "jsonl"}).text.splitlines()
    assert [json.loads(line) for line in lines] == rows


def test_batch_row_refuses_a_bad_context(client):
    reply = client.post("/api/batch/row", files=upload(SAMPLES / "hand_002.jpg"), data={"context": '{"seat": 1}'})
    assert reply.status_code == 400 and reply.json()["error"].startswith("context:")


def test_page_offers_a_camera_file_input_and_openapi_docs(client):
    page = client.get("/").text
    assert '<input id="photo-input"' in page and 'type="file"' in page
    assert 'accept="image/*"' in page and 'capture="environment"' in page
    assert client.get("/batch").status_code == 200
    schema = client.get("/openapi.json").json()
    assert {"/api/photo", "/api/score", "/api/revise", "/api/batch/row", "/api/batch/table"} <= set(schema["paths"])
    assert client.get("/docs").status_code == 200


def test_page_refers_to_nothing_outside_the_app(client):
    """No CDN: every src/href in the page and its scripts is a path on the app itself."""
    import re

    for path in ("/", "/batch", "/static/app.js", "/static/batch.js", "/static/faces.js", "/static/hand_text.js",
                 "/static/style.css"):
        text = client.get(path).text
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
        assert "@import" not in text and "url(" not in text, path


def test_serve_binds_127_0_0_1_by_default_and_warns_for_0_0_0_0(monkeypatch, capsys):
    import uvicorn

    from fanscan.commands import serve

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **kw: calls.append((host, port)))
    monkeypatch.setattr(serve, "check_port_free", lambda host, port: None)  # port 8000 may be in use here
    assert main(["serve"]) == 0
    assert calls[-1] == ("127.0.0.1", 8000)
    assert "warning" not in capsys.readouterr().err
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 0
    assert calls[-1] == ("0.0.0.0", 8123)
    assert "warning: listening on 0.0.0.0" in capsys.readouterr().err
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"


def test_serve_on_a_taken_port_is_a_one_line_error(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert capsys.readouterr().err.strip().startswith(f"fanscan: error: cannot listen on 127.0.0.1:{port}: ")


@pytest.fixture(scope="module")
def live_server():
    with running_server() as url:
        yield url


TRICKS = ["/../pyproject.toml", "/static/../pyproject.toml", "/static/../app.py", "/static/%2e%2e/app.py",
          "/static/%2e%2e%2fapp.py", "/static/..%2fapp.py", "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fpyproject.toml",
          "/static/..%5c..%5capp.py", "/static//etc/passwd", "/static/%2fetc%2fpasswd", "/%2e%2e/%2e%2e/etc/passwd",
          "/static/%252e%252e/app.py", "/static/....//app.py"]


def raw_get(base_url: str, path: str) -> tuple[int, str]:
    """GET with the request line exactly as given (a client library would normalise it)."""
    host, port = base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    with contextlib.closing(connection):
        connection.putrequest("GET", path, skip_host=False, skip_accept_encoding=True)
        connection.endheaders()
        reply = connection.getresponse()
        return reply.status, reply.read().decode("utf-8", "replace")


def test_raw_requests_reach_the_static_folder(live_server):
    status, body = raw_get(live_server, "/static/app.js")
    assert status == 200 and "fanscanTimings" in body


@pytest.mark.parametrize("path", TRICKS)
def test_path_tricks_serve_nothing_outside_the_static_folder(live_server, path):
    status, body = raw_get(live_server, path)
    assert status in (400, 404), (path, status)
    for secret in ("[project]", "root:", "def create_app", "import "):
        assert secret not in body


def test_server_timing_tells_the_upload_apart_from_the_work():
    """`upload` is the time until the request's body has arrived: a body that trickles in over 0.3 s shows at least
    that much upload, and the rest of `app` is the (small) work of answering."""
    import asyncio

    from fanscan.web.server_timing import ServerTiming

    async def echo_app(scope, receive, send):
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    chunks = [{"type": "http.request", "body": b"x" * 10, "more_body": True}] * 3
    chunks.append({"type": "http.request", "body": b"", "more_body": False})
    sent = []

    async def slow_receive():
        await asyncio.sleep(0.1)
        return chunks.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(ServerTiming(echo_app)({"type": "http"}, slow_receive, send))
    header = dict(sent[0]["headers"])[b"server-timing"].decode()
    timings = {part.split(";dur=")[0].strip(): float(part.split(";dur=")[1]) for part in header.split(",")}
    assert timings["upload"] >= 390  # four receives of 0.1 s each
    assert 0 <= timings["app"] - timings["upload"] < 50


def test_an_error_within_an_upload_names_the_upload_not_its_temporary_copy() -> None:
    import io

    from fanscan.scoring.errors import FanscanError

    from fanscan.web.uploads import uploaded_file

    class Upload:
        filename, file = "my hand.jpg", io.BytesIO(b"not a photo")

    with pytest.raises(FanscanError) as caught, uploaded_file(Upload()) as (path, name):
        raise FanscanError(f"{path}: not a photo")
    assert str(caught.value) == "my hand.jpg: not a photo" and name == "my hand.jpg"
