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


# ---- issue 20: exit statuses, python -m fanscan, rules layout, waits --rules, train's figures ------------------

# 123p 345p 123s 777s 11p on a discard: Concealed Hand 2, Mixed Double Chow 1, One Voided Suit 1, No Honors 1 = 5
# fan, below MCR's 8 (worked out by hand from the Green Book values); Big Four Winds is 88.
BELOW_MINIMUM_HAND = "11123345p12377s7s"
VALID_HAND = "[EEE,2][SSSS,1]WWWNN55pN|EE1000"


def test_a_hand_below_the_minimum_exits_3_and_a_valid_one_0(capsys) -> None:
    code, out, _ = run(["score", BELOW_MINIMUM_HAND], capsys)
    assert code == 3 and "Total  5 fan - BELOW the 8-fan minimum" in out
    assert run(["score", BELOW_MINIMUM_HAND, "--json"], capsys)[0] == 3
    assert run(["score", VALID_HAND], capsys)[0] == 0
    # Hong Kong has no minimum: the same hand is a valid win there.
    assert run(["score", BELOW_MINIMUM_HAND, "--rules", "hk"], capsys)[0] == 0
    assert run(["score", "1m"], capsys)[0] == 2  # nothing scored


def test_a_file_of_hands_exits_by_rows_scored_and_says_the_minimum_per_row(capsys, tmp_path) -> None:
    hands = tmp_path / "hands.txt"
    hands.write_text(f"{BELOW_MINIMUM_HAND}\n{VALID_HAND}\n")
    code, out, _ = run(["score", str(hands)], capsys)
    assert code == 0 and [json.loads(line)["meets_minimum"] for line in out.splitlines()] == [False, True]
    hands.write_text(f"{VALID_HAND}\nnot a hand\n")
    assert run(["score", str(hands)], capsys)[0] == 1


@pytest.mark.parametrize("argv", [[], ["score"], ["photo"], ["batch"]])
def test_help_says_what_each_exit_status_means(argv, capsys) -> None:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 = done" in text and "3 = the one hand given (score HAND, photo) was scored but is below" \
        in text and "2 = usage error" in text


def test_python_dash_m_fanscan_runs_the_command(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "fanscan", "score", BELOW_MINIMUM_HAND, "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 3 and json.loads(done.stdout)["total"] == 5


def test_rules_lists_mcr_first_within_100_columns(capsys) -> None:
    from fanscan.columns import width

    code, out, _ = run(["rules", "-v"], capsys)
    assert code == 0
    heads = [line.split(":")[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert [h.split()[0] for h in heads] == ["mcr", "hk"]
    assert max(width(line) for line in out.splitlines()) <= 100
    # Wrapped, nothing lost: every item replaced is still listed (Big Four Winds replaces five).
    assert "little_four_winds" in out.split("big_three_dragons")[0]
    assert "Similar Sequences)" in out  # the longest Hong Kong name, on a line of its own


def test_waits_under_hk_says_it_is_mcr_only(capsys) -> None:
    code, out, err = run(["waits", "11123345p12377s", "--rules", "hk"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "MCR only" in err
    assert run(["waits", "11123345p12377s", "--rules", "mcr"], capsys)[0] == 0


def test_train_prints_rounded_figures(capsys, monkeypatch, tmp_path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import fanscan.training.finetune_classifier as finetune_module

    card = {"held_out_top1": {"shipped": 0.9888888888888889, "fine_tuned": 1.0}, "held_out_crops": 90,
            "model": str(tmp_path / "tile_classifier.onnx")}
    monkeypatch.setattr(finetune_module, "finetune", lambda *args, **kwargs: card)
    code, out, _ = run(["train", "classifier", "--data", str(tmp_path)], capsys)
    assert code == 0 and "shipped 0.9889, fine-tuned 1.0000" in out and "0.98888" not in out
