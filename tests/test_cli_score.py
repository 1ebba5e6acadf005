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
    (["score", "１２３m456p789s11sEEE"], "half-width"),  # full-width digits: no KeyError
    (["score", "[123m,²]456p789s11sEEE"], "claim index"),  # a superscript digit: no ValueError
    (["score", "[123m,1][345m,1]567m34sCC5s", "--kong-on-kong"], "kong on kong needs two kongs"),
    (["score", "[123m,1][345m,1]567m34sCC5s|EE1000|12"], "there are 8 flowers"),
    (["score", "/"], "is a folder"),
    (["score", "   "], "empty hand string"),
    (["waits", "1m"], "1 tile: a hand has 14 to score (13 waiting)"),
])
def test_user_errors_are_one_line_and_exit_nonzero(argv: list[str], message: str, capsys) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
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


@pytest.mark.parametrize(("argv", "message"), [
    (["score"], "fanscan score: error: the following arguments are required: HAND"),
    (["waits"], "fanscan waits: error: the following arguments are required: HAND13"),
    (["score", "123m", "--rules", "xyz"], "invalid choice: 'xyz'"),
    (["score", "123m", "--seat-wind", "X"], "invalid choice: 'X'"),
    (["scroe", "123m"], "invalid choice: 'scroe'"),
    ([], "required: COMMAND"),
])
def test_usage_errors_are_one_line(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "--help" in err and "usage:" not in err


def test_rules_name_is_case_insensitive(capsys) -> None:
    code, out, _ = run(["score", "[EEE,2][SSSS,1]WWWNN55pN|EE1000", "--rules", "HK", "--json"], capsys)
    assert code == 0 and json.loads(out)["rules"] == "hk"


def test_batch_windows_file_with_bom_blank_lines_and_garbage(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_bytes("\ufeff[123m,1][345m,1]678p56sWW7s\r\n\r\n# comment\r\n \t \r\n１２３m456p789s11sEEE\r\n"
                     "[123m,²]456p789s11sEEE\r\n19m19p119sESWNPFC|EE1000".encode())
    code, out, err = run(["score", str(path), "--rules", "hk"], capsys)
    records = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and err == ""
    assert [(r["line"], r["ok"]) for r in records] == [(1, True), (5, False), (6, False), (7, True)]
    assert records[0]["input"] == "[123m,1][345m,1]678p56sWW7s"  # no byte-order mark, no \r
    assert all("\n" not in r.get("error", "") for r in records)


def test_batch_bytes_that_are_not_utf8_spoil_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "hands.txt"
    path.write_bytes(b"\xff\xfe12\n[123m,1][345m,1]678p56sWW7s\n")
    code, out, err = run(["score", str(path)], capsys)
    records = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and err == ""
    assert [r["ok"] for r in records] == [False, True] and "not UTF-8" in records[0]["error"]


def test_json_does_not_depend_on_how_the_hand_is_written(capsys) -> None:
    outs = []
    for text in ("[EEE,2][123m,1]WWWNN55pN|EE1000|ba", "[123m,1][EEE,2]N55pNWWWN|EE1000|ab"):
        for rules in ("mcr", "hk"):
            code, out, _ = run(["score", text, "--json", "--rules", rules], capsys)
            assert code == 0
            outs.append(out)
    assert outs[0] == outs[2] and outs[1] == outs[3] and outs[0] != outs[1]


def test_text_wording_fits_each_rule_set(capsys) -> None:
    hand = "1112345678999m5m|EE1000"
    _, mcr, _ = run(["score", hand], capsys)
    _, hk, _ = run(["score", hand, "--rules", "hk"], capsys)
    assert "not counted (non-repeat):" in mcr and "implied by Nine Gates" in mcr and "replaced by" not in mcr
    assert "replaced by a tighter item" in hk and "Self Draw (2)  - replaced by Fully Concealed Hand" in hk
    assert "non-repeat" not in hk and "implied by" not in hk
    assert hk.index("Nine Gates") < hk.index("One Suit (Flush)") < hk.index("Special Eyes")  # biggest first
    assert "Win    5m self-drawn; prevalent wind E, seat wind E" in mcr


def test_text_whole_hand_only_for_the_whole_hand(capsys) -> None:
    # Four Kongs' evidence is the 16 kong tiles, not the hand (the pair is not part of it)
    _, out, _ = run(["score", "[1111m][2222p,1][3333s,2][EEEE,3]FF"], capsys)
    four_kongs = next(line for line in out.splitlines() if "Four Kongs" in line)
    assert four_kongs.endswith("1111m2222p3333sEEEE")
    all_types = next(line for line in out.splitlines() if "All Types" in line)
    assert all_types.endswith("whole hand")


def test_excluded_fans_show_their_count(capsys) -> None:
    # four pungs of terminals, each dropped by All Terminals and Honors: one line "x4", worth 4 in all
    _, out, _ = run(["score", "111m999m111p999pEE|EE1000"], capsys)
    assert "Pung of Terminals x4 (4)  - implied by All Terminals and Honors" in out
