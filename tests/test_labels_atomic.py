"""Files and folders the tool writes take the user's umask; a killed run's leftovers are removed by the next."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from labels_helpers import TILES, FakePipeline, quad, write_photo

from fanscan.labels import atomic
from fanscan.labels.importing import import_labels
from fanscan.labels.predict import predict
from fanscan.labels.save import save_labelled_photo


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o002])
def umask(request):
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def every_file_and_folder(root: Path) -> list[Path]:
    return [root, *root.rglob("*")] if root.is_dir() else [root]


@pytest.mark.parametrize("fmt", ["label-studio", "coco", "yolo"])
def test_predict_output_takes_the_umask(tmp_path, umask, fmt):
    photos = tmp_path / "photos"
    write_photo(photos / "one.png")
    os.chmod(photos / "one.png", 0o666 & ~umask)  # the photo is linked into a yolo dataset as it is
    out = tmp_path / ("guesses" if fmt == "yolo" else "guesses.json")
    predict(photos, out, fmt, image_url="photos/" if fmt == "label-studio" else None, pipeline=FakePipeline())
    written = [*every_file_and_folder(out), tmp_path / "guesses.report.txt"]
    assert len(written) == (1 + 1 + 2 + 1 + 1 + 1 if fmt == "yolo" else 2)  # out, 2 folders, 2 files, data.yaml; report
    for path in written:
        assert mode(path) == (0o777 if path.is_dir() else 0o666) & ~umask, path


def test_imported_dataset_takes_the_umask(tmp_path, umask):
    photos = tmp_path / "photos"
    write_photo(photos / "one.png")
    os.chmod(photos / "one.png", 0o666 & ~umask)
    predict(photos, tmp_path / "guesses", "yolo", pipeline=FakePipeline())
    import_labels(tmp_path / "guesses", tmp_path / "dataset")
    for path in every_file_and_folder(tmp_path / "dataset"):
        assert mode(path) == (0o777 if path.is_dir() else 0o666) & ~umask, path


def test_saved_labels_and_photo_take_the_umask(tmp_path, umask):
    photo = write_photo(tmp_path / "hand.png")
    saved = save_labelled_photo(tmp_path / "mine", photo.read_bytes(),
                                [(t, quad(x0, y0, x1, y1)) for t, x0, y0, x1, y1 in TILES], (400, 300), "hand.png")
    label = tmp_path / "mine" / "labels" / "hand.txt"
    assert saved == tmp_path / "mine" / "images" / "hand.png" and label.is_file()
    for path in (saved, label, tmp_path / "mine" / "data.yaml"):
        assert mode(path) == 0o666 & ~umask, path


KILLED_RUN = """
import sys, time
from pathlib import Path
from fanscan.labels.atomic import new_folder
with new_folder(Path(sys.argv[1])) as work:
    (work / "images").mkdir()
    print(work, flush=True)
    time.sleep(600)
"""


def test_a_killed_runs_partial_folder_is_removed_by_the_next_run(tmp_path):
    out = tmp_path / "dataset"
    child = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        left = Path(child.stdout.readline().strip())
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert left.is_dir() and left.parent == tmp_path and left.name.startswith(".dataset.")
    # A run still going (this process), another machine's recent run and a recent one of an older fanscan stay;
    # one of an older fanscan unchanged for over a day goes.
    running = atomic.new_temporary_folder(tmp_path, "dataset")
    other_host = tmp_path / ".dataset.elsewhere-1-0a1b2c3d.partial"
    recent_legacy = tmp_path / ".dataset.k3_x9q2z.partial"
    old_legacy = tmp_path / ".dataset.a1b2c3d4.partial"
    unrelated = tmp_path / ".datasets.a1b2c3d4.partial"
    for folder in (other_host, recent_legacy, old_legacy, unrelated):
        folder.mkdir()
    day_ago = time.time() - atomic.STALE_AFTER_S - 60
    os.utime(old_legacy, (day_ago, day_ago))
    os.utime(unrelated, (day_ago, day_ago))
    with atomic.new_folder(out) as work:
        (work / "x").write_text("x")
    assert (out / "x").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["dataset", running.name, other_host.name, recent_legacy.name, unrelated.name])


def test_a_calibration_profile_takes_the_umask(tmp_path, umask):
    from test_calibrate import small_yolo

    from fanscan.cli import main

    out = tmp_path / "mine.npz"
    assert main(["calibrate", str(small_yolo(tmp_path, photos=1)), "--out", str(out), "--views", "0",
                 "--no-loo"]) == 0
    assert mode(out) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left
