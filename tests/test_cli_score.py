"""`fanscan score` and `fanscan waits` as a user runs them: readable text, JSON, JSON Lines, one-line errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from fanscan.cli import main


def run(argv: list[str], capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_breakdown(capsys) -> None:
    code, out, err = run(["score", "[EEE,2][SSSS,1]WWWNN55pN|EE1000"], capsys)
    assert code == 0 and err == ""
    assert "Big Four Winds" in out and "大四喜" in out and "Total  98 fan" in out
    assert "implied by Big Four Winds" in out
    assert "each opponent pays 8 + 98 = 106" in out


def test_unicode_tiles(capsys) -> None:
    code, out, _ = run(["score", "[EEE,2][SSSS,1]WWWNN55pN|EE1000", "--tiles", "unicode"], capsys)
    assert code == 0 and "\U0001F000" in out


def test_json(capsys) -> None:
    code, out, _ = run(["score", "[123m,1][345m,1]678p56sWW7s", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["total"] == 8
    assert data["fans"] == [{"id": "chicken_hand", "name": "Chicken Hand", "name_zh": "无番和", "value": 8,
                             "count": 1, "points": 8, "tiles": [data["fans"][0]["tiles"][0]]}]
    assert {"total_without_flowers", "meets_minimum", "excluded", "arrangement", "alternatives",
            "settlement", "rules"} <= set(data)


def test_context_flags_extend_the_string(capsys) -> None:
    code, out, _ = run(["score", "[123m,1][345m,1]567m34sCC5s", "--json", "--self-drawn", "--last-tile",
                        "--flowers", "ab", "--seat-wind", "S"], capsys)
    assert code == 0
    data = json.loads(out)
    ids = {f["id"] for f in data["fans"]}
    assert "last_tile_draw" in ids and "flowers" in ids and data["context"]["seat_wind"] == "S"
    _, out, _ = run(["score", "[1111m,1][345m,1]567m34sCC5s", "--json", "--kong-replacement"], capsys)
    assert "out_with_replacement_tile" in {f["id"] for f in json.loads(out)["fans"]}


@pytest.mark.parametrize(("argv", "message"), [
    (["score", "123m456p789s123sEx"], "unexpected character 'x' at position 18"),
    (["score", "123m456p789s123s5s"], "13 tiles"),
    (["score", "11111m456p789s12s5s"], "5 copies of 1m"),
    (["score", "[123m,1][345m,1]567m34sCC5s|EE1000", "--robbing-kong"], "cannot be self-drawn"),
    (["score", "[123m,1][345m,1]567m34sCC5s|EE1000", "--discard"], "contradicts"),
    (["score", "[123m,1][345m,1]567m34sCC5s|EE0000", "--seat-wind", "S"], "contradicts"),
    (["score", "[123m,1][345m,1]567m34sCC5s", "--kong-replacement"], "needs a kong"),
    (["score", "[123m,1][345m,1]567m34sCC5s", "--flowers", "xyz"], "not a flower"),
    (["score", "123m456p789s24689s"], "not a winning hand"),
    (["waits", "123m456p789s1235s5s"], "13-tile"),
    (["score", "no/such/hands.txt"], "no such file"),
])
def test_user_errors_are_one_line_and_exit_nonzero(argv: list[str], message: str, capsys) -> None:
    code, out, err = run(argv, capsys)
    assert code != 0 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_batch_json_lines_keeps_going(capsys, monkeypatch) -> None:
    lines = "[EEE,2][SSSS,1]WWWNN55pN|EE1000\n# a comment\n\n123m456p789s123sEx\n[123m,1][345m,1]678p56sWW7s\n"
    code, out, err = run(["score", "-"], capsys, stdin=lines, monkeypatch=monkeypatch)
    records = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and err == ""
    assert [r["ok"] for r in records] == [True, False, True]
    assert records[0]["total"] == 98 and records[2]["total"] == 8
    assert records[1]["line"] == 4 and "position 18" in records[1]["error"]


def test_batch_file_all_good_exits_zero(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_text("[123m,1][345m,1]678p56sWW7s\n19m19p119sESWNPFC|EE1000\n", encoding="utf-8")
    code, out, _ = run(["score", str(path)], capsys)
    assert code == 0 and [json.loads(x)["total"] for x in out.splitlines()] == [8, 89]


def test_waits(capsys) -> None:
    code, out, _ = run(["waits", "[111s,1]2345678999s"], capsys)
    assert code == 0 and "6 tiles" in out and "1 Bamboo" in out
    code, out, _ = run(["waits", "234m345s333pEEEE", "--json"], capsys)
    assert json.loads(out)["waits"] == []
    code, out, _ = run(["waits", "234m345s333pEEEE", "--json", "--formal"], capsys)
    assert json.loads(out)["waits"] == ["E"]


def test_help_mentions_batch_exit_status(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out, _ = capsys.readouterr()
    assert "JSON Lines" in out and "exit status" in out and "--self-drawn" in out


def test_console_script_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "fanscan.cli", "score", "11111m456p789s12s5s"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.strip() == \
        "fanscan: error: 5 copies of 1m: there are only four of each tile"
