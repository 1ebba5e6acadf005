"""What a newcomer tripped on (issue 13), each with a test that failed before its fix."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.scoring import Hand, WinContext, score
from fanscan.vision import load as load_module
from fanscan.vision.annotate import draw_proposal, layout_labels, place_labels
from fanscan.vision.proposal import NO_TILES, NOT_A_WINNING_HAND, TOO_FEW_TILES, HandProposal, ProposedTile
from test_cli_photo import labels_as_models, run_cli, sample  # noqa: F401 (labels_as_models: a fixture)

from fanscan.cli import main

ROOT = Path(__file__).resolve().parent.parent


# ---- fanscan photo BAD --json: one JSON object -----------------------------------------------------------------


@pytest.mark.usefixtures("labels_as_models")
def test_photo_json_of_an_unusable_file_is_one_json_object(capsys, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo\n")
    code, out, err = run_cli(["photo", str(bad), "--json"], capsys)
    assert code == 2
    data = json.loads(out)  # exactly one object on stdout
    assert data["ok"] is False and str(bad) in data["error"] and data["proposal"] is None
    assert err.startswith("fanscan: error: ") and err.count("\n") == 1


@pytest.mark.usefixtures("labels_as_models")
def test_photo_json_of_a_photo_without_tiles_is_one_json_object(capsys, tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    code, out, _ = run_cli(["photo", str(blank), "--json"], capsys)
    data = json.loads(out)
    assert code == 2 and data["ok"] is False and "no tiles" in data["error"]
    assert data["proposal"] is None or data["proposal"]["problem"] == NO_TILES


# ---- the context prompt after an impossible answer --------------------------------------------------------------


@pytest.mark.usefixtures("labels_as_models")
def test_after_an_impossible_context_enter_takes_none(capsys, monkeypatch):
    # accept, winning tile as proposed, self-drawn yes, seat E, prevalent E, no flowers, 'k' (a kong replacement,
    # but hand_004 has no kong: refused); then Enter: the question asked again offers '-', which always holds (the
    # rejected 'k' as its default would make Enter repeat the error), and the earlier answers stand.
    answers = "\n\ny\nE\nE\n-\nk\n\n"
    code, out, _ = run_cli(["photo", sample("hand_004")], capsys, answers, monkeypatch)
    assert code == 0, out
    again = out.split("answer again (the other answers stand)")[1]
    assert "Anything else?" in again and again.split("Anything else?")[1].split(":")[0].endswith("[-]")
    assert "Self-drawn?" not in again and "Win    F self-drawn" in out


# ---- "run without --yes to correct it" only where one can -------------------------------------------------------


@pytest.mark.usefixtures("labels_as_models")
def test_correct_it_hint_only_in_interactive_capable_text_output(capsys, tmp_path):
    code, out, err = run_cli(["photo", sample("hand_007"), "--yes"], capsys)
    assert code == 2 and "run without --yes to correct it" in err
    code, out, err = run_cli(["photo", sample("hand_007"), "--json"], capsys)
    assert code == 2 and "--yes" not in json.loads(out)["error"] and "--yes" not in err
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "hand_007.jpg").write_bytes(Path(sample("hand_007")).read_bytes())
    code, out, _ = run_cli(["batch", str(folder)], capsys)
    row = json.loads(out.splitlines()[0])
    assert code == 1 and row["ok"] is False and "--yes" not in row["error"] and "13 tiles found" in row["error"]


@pytest.mark.usefixtures("labels_as_models")
def test_proposal_says_why_it_is_not_complete_as_a_code(capsys):
    from fanscan.commands.photo import read_photo

    proposal = read_photo(sample("hand_007"))  # 13 tiles
    assert proposal.problem == TOO_FEW_TILES and proposal.problem_text.startswith("13 tiles found")
    assert HandProposal.from_dict(proposal.to_dict()).problem == TOO_FEW_TILES
    assert read_photo(sample("hand_001")).problem is None
    assert read_photo(sample("hand_020")).problem == NOT_A_WINNING_HAND  # 14 tiles that are not a hand


# ---- small CLI items --------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("labels_as_models")
def test_winning_tile_that_is_not_a_tile(capsys):
    code, _, err = run_cli(["photo", sample("hand_001"), "--yes", "--winning-tile", "XX"], capsys)
    assert code == 2 and "'XX' is not a tile id" in err
    code, _, err = run_cli(["photo", sample("hand_001"), "--yes", "--winning-tile", "5s"], capsys)
    assert code == 2 and "not among the hand's standing tiles" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_score_of_a_device_or_binary_file_says_what_it_is(capsys, tmp_path):
    code, _, err = run_cli(["score", "/dev/zero"], capsys)
    assert code == 2 and "/dev/zero is a device" in err and "no such file" not in err
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    code, _, err = run_cli(["score", str(binary)], capsys)
    assert code == 2 and "is a binary file" in err
    code, _, err = run_cli(["score", str(tmp_path / "missing.txt")], capsys)
    assert code == 2 and "no such file" in err


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"fanscan {version('fanscan')}"


@pytest.mark.parametrize("argv", [["score", "-1m"], ["score", "-1m", "--json"], ["waits", "-E"]])
def test_a_hand_string_starting_with_a_dash_is_not_taken_for_a_flag(argv, capsys):
    code, out, err = run_cli(argv, capsys)
    assert code == 2 and out == ""
    assert "unexpected character '-' at position 1" in err and err.count("\n") == 1


@pytest.mark.usefixtures("labels_as_models")
def test_annotate_with_an_empty_name_is_refused(capsys):
    code, _, err = run_cli(["photo", sample("hand_001"), "--yes", "--annotate", ""], capsys)
    assert code == 2 and "--annotate needs a file name" in err


@pytest.mark.parametrize(("text", "context", "rules"), [
    ("[EEE,2][SSSS,1]WWWNN55pN|EE1000|ab", None, "mcr"),
    ("[1111m][2222p]345s678s9s9s", WinContext(self_drawn=True, kong_replacement=True, kong_on_kong=True), "hk"),
])
def test_hand_from_the_json_of_a_score(text, context, rules):
    result = score(text, context, rules=rules)
    data = json.loads(json.dumps(result.to_dict()))
    hand = Hand.from_dict(data)
    assert score(hand, rules=rules).to_dict() == result.to_dict()
    assert Hand.from_dict(hand.to_dict()) == hand  # and the hand's own JSON form still round-trips


# ---- the time the user waits ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("labels_as_models")
def test_photo_time_includes_decoding(monkeypatch):
    from fanscan.commands.photo import read_photo

    real = load_module.load_image

    def slow_decode(path, *args, **kwargs):
        time.sleep(0.05)  # a decode that takes at least 50 ms
        return real(path, *args, **kwargs)

    monkeypatch.setattr(load_module, "load_image", slow_decode)
    timings = read_photo(sample("hand_001")).timings_ms
    assert timings["load"] >= 50 and timings["total"] >= timings["load"]


# ---- readable labels on a dense photo ---------------------------------------------------------------------------


def _dense_proposal(width: int, height: int, columns: int, rows: int) -> HandProposal:
    """Small tiles packed edge to edge (a heap of discards): labels above every tile would collide."""
    tiles = []
    tile_w, tile_h = width // (columns + 2), height // (rows + 2)
    for r in range(rows):
        for c in range(columns):
            x, y = (c + 1) * tile_w, (r + 1) * tile_h
            quad = [[x, y], [x + tile_w, y], [x + tile_w, y + tile_h], [x, y + tile_h]]
            tiles.append(ProposedTile(len(tiles) + 1, quad, [x, y, x + tile_w, y + tile_h], "upright", 0.9, "5m",
                                      0.95 if (r + c) % 3 else 0.5))
    return HandProposal("dense.jpg", (width, height), tiles, [], "", [], "incomplete")


@pytest.mark.parametrize(("width", "height", "columns", "rows"), [(640, 480, 12, 8), (300, 200, 10, 6),
                                                                   (1600, 1200, 20, 10)])
def test_labels_do_not_overlap_and_stay_inside_the_image(width, height, columns, rows):
    proposal = _dense_proposal(width, height, columns, rows)
    labels, band = layout_labels(proposal, width, height)
    assert len(labels) == len(proposal.tiles)
    for label in labels:
        x0, y0, x1, y1 = label.rect
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height + band, label
        assert label.in_legend == (y0 >= height)
    for a, b in combinations(labels, 2):
        assert not (a.rect[0] < b.rect[2] and b.rect[0] < a.rect[2] and a.rect[1] < b.rect[3] and b.rect[1] < a.rect[3])
    drawn = draw_proposal(np.zeros((height, width, 3), np.uint8), proposal)
    assert drawn.shape == (height + band, width, 3)


def test_place_labels_keeps_to_the_image_edges():
    # a tile in each corner, labels as wide as a third of the image: each label inside, none overlapping
    boxes = [(0, 0, 20, 20), (280, 0, 300, 20), (0, 180, 20, 200), (280, 180, 300, 200)]
    rects = place_labels(boxes, [(100, 15)] * 4, 300, 200)
    assert all(r is not None and r[0] >= 0 and r[2] <= 300 and r[1] >= 0 and r[3] <= 200 for r in rects)
    assert place_labels([(0, 0, 10, 10)], [(400, 15)], 300, 200) == [None]  # wider than the photo: the legend


def test_console_script_version_from_a_fresh_process():
    out = subprocess.run([sys.executable, "-m", "fanscan.cli", "--version"], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert out.returncode == 0 and out.stdout.startswith("fanscan ")


def test_end_of_input_at_the_flowers_question_ends_the_questions():
    """Ctrl-D at any question scores nothing and stops (it used to be caught as a wrong flowers answer and asked
    again forever)."""
    from fanscan.scoring import FanscanError, parse_hand

    from fanscan.confirm import Prompter, ask_context

    answers = iter(["\n", "n\n", "E\n", "E\n"])  # winning tile as proposed, not self-drawn, seat E, prevalent E
    calls = []

    def read() -> str:
        calls.append(1)
        if len(calls) > 20:  # the old loop: stop it here rather than hang the test run
            raise AssertionError("the flowers question was asked again after the end of input")
        return next(answers, "")  # then the end of input, at the flowers question

    with pytest.raises(FanscanError, match="end of input"):
        ask_context(parse_hand("345999pSSSFPPPF"), WinContext(), Prompter(read=read, out=io.StringIO()))
    assert len(calls) == 5
