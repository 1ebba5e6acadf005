"""Learning as you play (`--learn`), a profile's history, `calibrate`'s progress and closing line, and which profile
`photo` says it reads with."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import TileClassifier
from fanscan.vision.profile import load_profile

from fanscan.calibration.learn import (
    FIX_WEIGHT,
    add_entry,
    data_folder,
    learn_photo,
    read_history,
    refit,
)
from fanscan.calibration.progress import ProgressBar
from fanscan.calibration.sources import tiles_from_yolo
from fanscan.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"


def sample_tiles(stem: str):
    """The labelled tiles of one sample photo (its YOLO labels: an expectation that is not the model's reading)."""
    return [t for t in tiles_from_yolo(SAMPLES) if Path(t.photo).stem == stem]


def test_learning_from_confirmed_photos_keeps_a_history_and_undoes_one(tmp_path, capsys):
    profile = tmp_path / "mine.npz"
    for photo in ("hand_001.jpg", "hand_002.jpg"):
        assert main(["photo", str(SAMPLES / "images" / photo), "--yes", "--self-drawn", "--learn", str(profile)]) == 0
    err = capsys.readouterr().err
    assert "read with the shipped model (no set profile)" in err  # the first photo: no profile yet
    assert f"read with the set profile 'mine' ({profile})" in err  # the second: the one the first made
    assert err.count("learned from this photo") == 2 and "refitted before exiting" in err
    lines = (data_folder(profile) / "history.jsonl").read_text().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["number"] == 1 and first["source"] == "hand_001.jpg" and len(first["photo_sha256"]) == 64
    assert sorted(first["tiles"]) == sorted(t.tile for t in sample_tiles("hand_001"))
    assert load_profile(profile).details["tiles"] == len(first["tiles"]) + len(json.loads(lines[1])["tiles"])

    assert main(["calibrate", "--history", str(profile)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2 and listed[0].startswith("1 ") and "hand_001.jpg" in listed[0]
    assert main(["calibrate", "--remove", "1", str(profile)]) == 0
    assert [e.number for e in read_history(profile)] == [2]
    assert not (data_folder(profile) / "entry-1.npz").exists()
    assert load_profile(profile).details["tiles"] == len(json.loads(lines[1])["tiles"])


def test_a_fix_outranks_the_model(tmp_path):
    """A tile the user says is another kind than the model reads: after one confirmation the profile reads that
    very tile as the user said, and the fix was counted as one."""
    classifier = TileClassifier()
    tiles = sample_tiles("hand_005")
    kinds = [t.tile for t in tiles]
    alone = next(i for i, kind in enumerate(kinds) if kinds.count(kind) == 1)  # no look-alike labelled otherwise
    tiles.insert(0, tiles.pop(alone))
    fixed_to = next(k for k in ("9s", "1m", "5p") if k not in kinds)
    tiles[0] = type(tiles[0])(tiles[0].context, tiles[0].quad, fixed_to, tiles[0].photo)
    profile = tmp_path / "fix.npz"
    entry = add_entry(profile, classifier, tiles, "photo", "hand_005.jpg")
    assert 0 in entry.hard
    fitted = refit(profile, classifier)
    from fanscan.calibration.views import plain_crop

    with_profile = TileClassifier(profile=fitted)
    assert with_profile.classify([plain_crop(tiles[0], classifier.crop_spec)], k=1)[0][0][0] == fixed_to
    stored = np.load(data_folder(profile) / "entry-1.npz")
    assert set(np.unique(stored["weights"][stored["tile_index"] == 0])) == {FIX_WEIGHT}


def test_bad_learn_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    photo = str(SAMPLES / "images" / "hand_001.jpg")
    assert main(["photo", photo, "--yes", "--learn", str(tmp_path / "mine.txt")]) == 2
    assert main(["photo", photo, "--yes", "--learn", str(tmp_path / "no" / "mine.npz")]) == 2
    assert main(["photo", photo, "--json", "--learn", str(tmp_path / "mine.npz")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("fanscan: error")]
    assert len(err) == 3 and "must end in .npz" in err[0] and "no such folder" in err[1] and "--json" in err[2]
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_history_is_one_line_naming_it(tmp_path, capsys):
    profile = tmp_path / "p.npz"
    data_folder(profile).mkdir()
    (data_folder(profile) / "history.jsonl").write_text('{"number": 1}\n')
    assert main(["calibrate", "--history", str(profile)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "history.jsonl:1: not a history line" in err
    with pytest.raises(FanscanError, match="no history entry 3"):
        from fanscan.calibration.learn import remove_entry

        (data_folder(profile) / "history.jsonl").write_text(
            '{"number": 1, "kind": "photo", "source": "a", "time": "t", "tiles": ["1m"]}\n')
        remove_entry(profile, 3)


def test_learning_a_photo_whose_reading_is_for_another_size_is_refused(tmp_path):
    from fanscan.vision.pipeline import default_pipeline

    proposal = default_pipeline().propose(str(SAMPLES / "images" / "hand_001.jpg"))
    proposal.image_size = [proposal.image_size[0] + 1, proposal.image_size[1]]
    with pytest.raises(FanscanError, match="reading is for"):
        learn_photo(tmp_path / "p.npz", SAMPLES / "images" / "hand_001.jpg", proposal, TileClassifier())
    assert list(tmp_path.iterdir()) == []


def test_progress_bar_draws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, log = Terminal(), io.StringIO()
    for stream in (terminal, log):
        bar = ProgressBar(stream)
        for done in range(1, 5):
            bar("embedding views", done, 4)
        bar.close()
    assert log.getvalue() == ""
    drawn = terminal.getvalue()
    assert drawn.count("\r") == 5 and "4/4" in drawn and "#" * 24 in drawn


def test_calibrate_ends_with_one_line_saying_what_it_learned(tmp_path, capsys):
    from test_calibrate import small_yolo

    folder = small_yolo(tmp_path)
    out = tmp_path / "mine.npz"
    assert main(["calibrate", str(folder), "--out", str(out), "--views", "4", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --quiet, and no terminal: no bar
    (line,) = captured.out.splitlines()
    kinds = len({t.tile for t in tiles_from_yolo(folder)})
    loo = load_profile(out).details["leave_one_out"]
    assert line.startswith(f"learned {kinds} tile kinds from ")
    assert f"read {loo['accuracy']:.3f} with the profile, {loo['accuracy_without_profile']:.3f} without" in line
    assert [e.kind for e in read_history(out)] == ["calibrate"]


def test_photo_json_says_which_profile_reads_it(tmp_path, capsys):
    from web_helpers import write_set_profile

    photo = str(SAMPLES / "images" / "hand_001.jpg")
    assert main(["photo", photo, "--json", "--self-drawn"]) == 0  # self-drawn: 9 fan, exit 0
    assert json.loads(capsys.readouterr().out)["profile"] is None
    path = write_set_profile(tmp_path / "grandma.npz", "grandma's set")
    assert main(["photo", photo, "--json", "--self-drawn", "--profile", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["profile"]["name"] == "grandma's set"


def test_photo_and_batch_say_which_profile_reads_the_photos(tmp_path, capsys):
    import shutil

    from web_helpers import write_set_profile

    path = write_set_profile(tmp_path / "grandma.npz", "grandma's set")
    folder = tmp_path / "photos"
    folder.mkdir()
    shutil.copy(SAMPLES / "images" / "hand_001.jpg", folder)
    main(["batch", str(folder), "--profile", str(path)])
    main(["photo", str(folder / "hand_001.jpg"), "--yes", "--profile", str(path)])
    err = capsys.readouterr().err
    assert err.count(f"fanscan: read with the set profile \"grandma's set\" ({path})") == 2
