"""`fanscan batch`'s table: every file gets a row, a damaged table is repaired (never glued to), a foreign one or a
locked one refused, a resume under other settings refused, and the exit status counts the table's error rows.

The models are replaced by the samples' labels (`LabelPipeline` of test_cli_photo): hand_001 and hand_016 read as
complete hands, hand_007 shows 13 tiles (an error row).
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_cli_photo import SAMPLES, labels_as_models, run_cli  # noqa: F401  (a fixture, used by all below)

from fanscan.batch.lock import TableLock
from fanscan.batch.table import COLUMNS

pytestmark = pytest.mark.usefixtures("labels_as_models")

OK_PHOTOS = ("hand_001.jpg", "hand_016.jpg")
ERROR_PHOTO = "hand_007.jpg"


def folder_of(tmp_path: Path, names=(*OK_PHOTOS, ERROR_PHOTO)) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes((SAMPLES / "images" / name).read_bytes())
    return folder


def json_rows(table: Path) -> list[dict]:
    return [json.loads(line) for line in table.read_text(encoding="utf-8").splitlines()]


def csv_rows(table: Path) -> list[dict]:
    with table.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        assert next(reader) == list(COLUMNS)
        rows = list(reader)
    assert all(len(row) == len(COLUMNS) for row in rows), rows
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows]


def batch(capsys, folder: Path, table: Path, *extra: str):
    return run_cli(["batch", str(folder), "--out", str(table), *extra], capsys)


def one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("fanscan: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---- a damaged table is repaired or its rows redone, never glued to -------------------------------------------------


def test_jsonl_last_row_without_newline_is_kept_and_not_glued(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.jsonl"
    assert batch(capsys, folder, table)[0] == 0
    first = json_rows(table)[0]
    table.write_text(json.dumps(first, ensure_ascii=False), encoding="utf-8")  # a whole row, its newline lost
    code, _, err = batch(capsys, folder, table)
    assert code == 0
    rows = json_rows(table)
    assert sorted(r["file"] for r in rows) == sorted(OK_PHOTOS)
    assert rows[0] == first and "no newline" in err


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_row_cut_mid_line_is_redone(capsys, tmp_path, suffix):
    folder = folder_of(tmp_path)
    table = tmp_path / f"t{suffix}"
    assert batch(capsys, folder, table)[0] == 1
    whole = table.read_text(encoding="utf-8")
    lines = whole.splitlines(keepends=True)
    cut = "".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]  # killed while writing the last row
    table.write_text(cut, encoding="utf-8")
    assert batch(capsys, folder, table)[0] == 1
    rows = csv_rows(table) if suffix == ".csv" else json_rows(table)
    assert sorted(r["file"] for r in rows) == sorted((*OK_PHOTOS, ERROR_PHOTO))


def test_csv_last_row_without_newline_is_redone_not_glued(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.csv"
    assert batch(capsys, folder, table)[0] == 0
    table.write_text(table.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")  # an editor ate the newline
    (folder / "hand_019.jpg").write_bytes((SAMPLES / "images" / "hand_019.jpg").read_bytes())
    assert batch(capsys, folder, table)[0] == 0
    rows = csv_rows(table)
    assert sorted(r["file"] for r in rows) == sorted((*OK_PHOTOS, "hand_019.jpg"))
    assert all(r["ok"] == "True" and r["total"].isdigit() for r in rows)


def test_glued_and_repeated_lines_are_dropped_and_redone(capsys, tmp_path):
    folder = folder_of(tmp_path)
    table = tmp_path / "t.jsonl"
    batch(capsys, folder, table)
    lines = table.read_text(encoding="utf-8").splitlines()
    # What an older fanscan left: a cut row with the next run's row glued on, and a row written twice.
    damaged = [lines[0][:30] + lines[1], lines[2], lines[2]]
    table.write_text("\n".join(damaged) + "\n", encoding="utf-8")
    _, _, err = batch(capsys, folder, table)
    rows = json_rows(table)
    assert sorted(r["file"] for r in rows) == sorted((*OK_PHOTOS, ERROR_PHOTO)) and "dropped 2" in err


# ---- tables that are not ours, or in use --------------------------------------------------------------------------


@pytest.mark.parametrize("restart", [False, True])
def test_a_foreign_csv_is_refused_and_left_as_it_was(capsys, tmp_path, restart):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "accounts.csv"
    table.write_text("name,amount\nalice,12\nbob", encoding="utf-8")
    code, _, err = batch(capsys, folder, table, *(["--restart"] if restart else []))
    assert code == 2 and "not a fanscan batch table" in one_line_error(err) and str(table) in err
    assert table.read_text(encoding="utf-8") == "name,amount\nalice,12\nbob"


def test_a_foreign_json_lines_file_is_refused(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "events.jsonl"
    table.write_text('{"event": "login"}', encoding="utf-8")  # one JSON line, no newline: not a cut row of ours
    code, _, err = batch(capsys, folder, table)
    assert code == 2 and "not a row of a batch table" in one_line_error(err)
    assert table.read_text(encoding="utf-8") == '{"event": "login"}'


def test_a_second_batch_on_the_same_table_refuses(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.csv"
    with TableLock(tmp_path / "t.csv.lock", table):  # the first batch, still running
        code, _, err = batch(capsys, folder, table)
    assert code == 2 and "another fanscan batch is writing this table" in one_line_error(err)
    assert not table.exists()
    assert batch(capsys, folder, table)[0] == 0  # once it is done
    assert not (tmp_path / "t.csv.lock").exists()


def test_a_lock_left_by_a_killed_batch_does_not_block(capsys, tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.csv"
    (tmp_path / "t.csv.lock").write_text(f"pid {dead.stdout.strip()} on this host\n")
    assert batch(capsys, folder, table)[0] == 0 and len(csv_rows(table)) == 2


def test_two_processes_at_once_one_refuses(tmp_path):
    """Two real processes race for one table: exactly one gets the lock."""
    table = tmp_path / "t.csv"
    script = ("import sys, time; from pathlib import Path; from fanscan.batch.lock import TableLock\n"
              "from fanscan.scoring.errors import FanscanError\n"
              f"t = Path({str(table)!r})\n"
              "try:\n    lock = TableLock(Path(str(t) + '.lock'), t); lock.acquire()\n"
              "except FanscanError:\n    sys.exit(3)\n"
              "print('held', flush=True); time.sleep(3)\n")
    first = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert first.stdout.readline().strip() == "held"
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    first.wait(timeout=60)
    assert (first.returncode, second.returncode) == (0, 3)


# ---- every file gets a row ----------------------------------------------------------------------------------------


def make_other_files(folder: Path) -> dict[str, str]:
    """Files that are not JPEG/PNG/WebP, by their true type (some with a photo's name), with the error expected."""
    image = np.full((64, 64, 3), 200, np.uint8)
    cv2.imwrite(str(folder / "scan.bmp"), image)
    cv2.imwrite(str(folder / "scan.tiff"), image)
    (folder / "anim.gif").write_bytes(b"GIF89a\x40\x00\x40\x00\x00\x00\x00;")
    (folder / "iphone.jpg").write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))  # HEIC
    (folder / "burst.heic").write_bytes(b"\x00\x00\x00\x18ftypheix\x00\x00\x00\x00mif1heix" + bytes(64))
    (folder / "notes.txt").write_text("scores of last week\n")
    (folder / "empty.png").write_bytes(b"")
    unsupported = "this image format is not supported"
    return {"scan.bmp": unsupported, "scan.tiff": unsupported, "anim.gif": unsupported, "iphone.jpg": unsupported,
            "burst.heic": unsupported,
            "notes.txt": "not an image file", "empty.png": "the file is empty"}


def test_every_file_gets_a_row_and_the_count_adds_up(capsys, tmp_path):
    folder = folder_of(tmp_path)
    expected_errors = make_other_files(folder)
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    table = folder / "scores.jsonl"  # the table inside the folder: it gets no row itself
    code, _, err = batch(capsys, folder, table)
    rows = {r["file"]: r for r in json_rows(table)}
    assert code == 1
    assert set(rows) == {*OK_PHOTOS, ERROR_PHOTO, *expected_errors}
    for name, message in expected_errors.items():
        assert rows[name]["ok"] is False and message in rows[name]["error"], rows[name]
    files = 3 + len(expected_errors)
    assert f"{files} files: 2 scored, {files - 2} errors" in err and "1 hidden file passed over" in err


def test_recursive_scores_the_sub_folders(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS[:1])
    (folder / "day2").mkdir()
    (folder / "day2" / "hand_016.jpg").write_bytes((SAMPLES / "images" / "hand_016.jpg").read_bytes())
    table = tmp_path / "t.jsonl"
    _, _, err = batch(capsys, folder, table)
    assert [r["file"] for r in json_rows(table)] == ["hand_001.jpg"] and "1 sub-folder not entered" in err
    assert "1 file: 1 scored, 0 errors" in err  # the number of each count says it
    assert batch(capsys, folder, table, "--recursive")[0] == 0
    assert [r["file"] for r in json_rows(table)] == ["hand_001.jpg", "day2/hand_016.jpg"]


# ---- settings ------------------------------------------------------------------------------------------------------


def test_the_table_records_its_settings(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS[:1])
    table = tmp_path / "t.csv"
    batch(capsys, folder, table, "--rules", "hk", "--self-drawn")
    record = json.loads((tmp_path / "t.csv.meta.json").read_text(encoding="utf-8"))
    assert record["rules"] == "hk" and record["context"]["self_drawn"] is True and record["profile"] is None
    models = Path(__file__).resolve().parent.parent / "models"
    detector = hashlib.sha256((models / "tile_detector.onnx").read_bytes()).hexdigest()
    assert record["models"]["tile_detector.onnx"] == f"sha256:{detector[:16]}"


@pytest.mark.parametrize("change", [["--rules", "hk"], ["--self-drawn"], ["--seat-wind", "S"]])
def test_a_resume_with_other_settings_refuses_unless_restart(capsys, tmp_path, change):
    folder = folder_of(tmp_path)
    table = tmp_path / "t.jsonl"
    batch(capsys, folder, table)
    before = table.read_text(encoding="utf-8")
    code, _, err = batch(capsys, folder, table, *change)
    assert code == 2 and "was made with other settings" in one_line_error(err)
    assert table.read_text(encoding="utf-8") == before
    assert batch(capsys, folder, table, *change, "--restart")[0] == 1
    assert len(json_rows(table)) == 3
    assert batch(capsys, folder, table, *change)[0] == 1  # the new settings are the table's now


def test_other_model_versions_refuse_a_resume(capsys, tmp_path, monkeypatch):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.csv"
    batch(capsys, folder, table)
    monkeypatch.setattr("fanscan.batch.settings.model_versions",
                        lambda: {"tile_detector.onnx": "sha256:0000", "tile_classifier.onnx": "sha256:0000"})
    code, _, err = batch(capsys, folder, table)
    assert code == 2 and "models.tile_detector.onnx" in one_line_error(err)


def test_a_table_without_its_settings_record_is_not_resumed(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / "t.csv"
    batch(capsys, folder, table)
    (tmp_path / "t.csv.meta.json").unlink()  # a table of an older fanscan, or a record lost
    code, _, err = batch(capsys, folder, table)
    assert code == 2 and "no record of the settings" in one_line_error(err)


# ---- exit status ---------------------------------------------------------------------------------------------------


def test_exit_status_counts_the_error_rows_of_the_table_also_after_a_resume(capsys, tmp_path):
    folder = folder_of(tmp_path)
    table = tmp_path / "t.csv"
    assert batch(capsys, folder, table)[0] == 1
    code, _, err = batch(capsys, folder, table)  # nothing left to do; the error row is still there
    assert code == 1 and "3 files: 2 scored, 1 error (0 done now)" in err
    clean = tmp_path / "clean.csv"
    assert batch(capsys, folder_of(tmp_path / "b", OK_PHOTOS), clean)[0] == 0
    assert batch(capsys, tmp_path / "b" / "photos", clean)[0] == 0


@pytest.mark.parametrize("where", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:8786"]])
def test_without_dask_a_cluster_batch_says_which_extra_to_install(capsys, tmp_path, monkeypatch, where):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails as it does without the extra
    code, _, err = batch(capsys, folder_of(tmp_path, OK_PHOTOS[:1]), tmp_path / "t.csv", *where)
    assert code == 2 and "pip install 'fanscan[cluster]'" in one_line_error(err)


def test_a_profile_rebuilt_under_the_same_name_counts_as_other_settings(tmp_path):
    """The record holds the profile's content hash, not only its path: a resume after `fanscan calibrate` rewrote
    the same file must be refused."""
    import argparse

    from fanscan.batch.settings import batch_settings, normalised, settings_differences

    profile = tmp_path / "set.npz"
    profile.write_bytes(b"first build")
    args = argparse.Namespace(rules="mcr", profile=str(profile), accept_overrides=False)
    first = normalised(batch_settings(args))
    assert first["profile_version"] == "sha256:" + hashlib.sha256(b"first build").hexdigest()[:16]
    assert settings_differences(first, normalised(batch_settings(args))) == []
    profile.write_bytes(b"second build")
    differences = settings_differences(first, normalised(batch_settings(args)))
    assert len(differences) == 1 and differences[0].startswith("profile_version:")


# ---- hostile names and tables --------------------------------------------------------------------------------------


def write_under(folder: Path, *parts: bytes, data: bytes) -> None:
    """A file at a path given as bytes (a name need not be UTF-8), its folders made."""
    path = os.path.join(os.fsencode(folder), *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_names_not_utf8_or_with_a_newline_get_one_row_each_run_after_run(capsys, tmp_path, suffix):
    folder = folder_of(tmp_path, OK_PHOTOS[:1])
    photo = (SAMPLES / "images" / "hand_016.jpg").read_bytes()
    write_under(folder, b"day\xff", b"hand_016.jpg", data=photo)  # Latin-1 bytes, not UTF-8
    write_under(folder, b"day\n2", b"hand_016.jpg", data=photo)
    write_under(folder, b"caf\xe9\r.jpg", data=photo)
    # the names as their rows give them: each byte that is not UTF-8 and each line break as a Python escape
    expected = ["caf\\xe9\\r.jpg", "day\\n2/hand_016.jpg", "day\\xff/hand_016.jpg", "hand_001.jpg"]
    table = tmp_path / f"t{suffix}"
    for _ in range(3):  # the first run, then two resumes
        _, _, err = batch(capsys, folder, table, "--recursive")
        assert "Traceback" not in err
        rows = csv_rows(table) if suffix == ".csv" else json_rows(table)
        assert sorted(r["file"] for r in rows) == expected, err
    assert "4 of 4 files already in" in err
    scored = {r["file"] for r in rows if r["ok"] in (True, "True")}
    assert scored == {"hand_001.jpg", "day\\n2/hand_016.jpg", "day\\xff/hand_016.jpg"}  # the photos were read


def test_a_table_reached_through_a_link_is_locked_and_repaired_where_it_is(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS)
    table, link = tmp_path / "t.csv", tmp_path / "link.csv"
    link.symlink_to(table)
    with TableLock(tmp_path / "t.csv.lock", table):  # a batch writing the table by its own name
        code, _, err = batch(capsys, folder, link)
    assert code == 2 and "another fanscan batch is writing this table" in one_line_error(err)
    assert batch(capsys, folder, link)[0] == 0 and len(csv_rows(table)) == 2
    table.write_text(table.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")  # to be repaired
    code, _, err = batch(capsys, folder, link)
    assert code == 0 and "no newline" in err
    assert link.is_symlink() and len(csv_rows(table)) == 2  # the repair replaced the table, not the link
    code, _, err = batch(capsys, folder, table)  # by its own name: the same table, its settings record too
    assert code == 0 and "2 of 2 files already in" in err


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_table_saved_again_by_a_spreadsheet_is_resumed(capsys, tmp_path, suffix):
    folder = folder_of(tmp_path)
    table = tmp_path / f"t{suffix}"
    assert batch(capsys, folder, table)[0] == 1
    saved = table.read_bytes().replace(b"\n", b"\r\n")
    if suffix == ".csv":  # quoted header cells, TRUE and FALSE
        header, rest = saved.split(b"\r\n", 1)
        quoted = b",".join(b'"' + cell + b'"' for cell in header.split(b","))
        saved = quoted + b"\r\n" + rest.replace(b",True,", b",TRUE,").replace(b",False,", b",FALSE,")
    table.write_bytes(codecs.BOM_UTF8 + saved)  # a UTF-8 byte order mark, as spreadsheets save UTF-8
    code, _, err = batch(capsys, folder, table)
    assert code == 1 and "3 of 3 files already in" in err and "dropped" not in err
    assert "3 files: 2 scored, 1 error" in err


def test_csv_cells_a_spreadsheet_would_take_for_formulas_are_marked_as_text(capsys, tmp_path):
    folder = folder_of(tmp_path, OK_PHOTOS[:1])
    for name in ("=HYPERLINK(1).jpg", "+1.jpg", "-3", "@SUM(A1).jpg", "'=quoted.jpg", "-2+3.jpg"):
        (folder / name).write_bytes(b"not a photo")
    table = tmp_path / "t.csv"
    batch(capsys, folder, table)

    def cells() -> list[list[str]]:
        with table.open(encoding="utf-8", newline="") as handle:
            return list(csv.reader(handle))

    names = {row[0] for row in cells()[1:]}
    # a `'` before each (one more before one that had one), but a plain number is left as the number it is
    assert names == {"hand_001.jpg", "'=HYPERLINK(1).jpg", "'+1.jpg", "-3", "'@SUM(A1).jpg", "''=quoted.jpg",
                     "'-2+3.jpg"}
    for row in cells():
        for cell in row:
            assert not re.match(r"[=+\-@]", cell) or re.fullmatch(r"-?\d+(\.\d+)?", cell), row
    _, _, err = batch(capsys, folder, table)  # the names read back as they are: nothing redone
    assert "7 of 7 files already in" in err and len(cells()) == 8
    jsonl = tmp_path / "t.jsonl"  # JSON Lines is no spreadsheet's: the names as they are
    batch(capsys, folder, jsonl)
    assert {"=HYPERLINK(1).jpg", "'=quoted.jpg", "-3"} <= {r["file"] for r in json_rows(jsonl)}


@pytest.mark.parametrize("what", ["table FIFO", "record FIFO", "table folder"])
def test_an_out_that_is_not_a_regular_file_is_refused_at_once(tmp_path, what):
    """A FIFO would block the batch (opened for writing, it waits for a reader): run in a process of its own."""
    folder = tmp_path / "photos"
    folder.mkdir()
    table = tmp_path / "t.csv"
    if what == "table FIFO":
        os.mkfifo(table)
    elif what == "record FIFO":
        os.mkfifo(tmp_path / "t.csv.meta.json")
    else:
        table.mkdir()
    done = subprocess.run([sys.executable, "-m", "fanscan.cli", "batch", str(folder), "--out", str(table)],
                          capture_output=True, text=True, timeout=60)
    kind = "a folder" if what == "table folder" else "a FIFO"
    assert done.returncode == 2 and f"is {kind}, not a regular file" in one_line_error(done.stderr)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_row_of_a_photo_whose_worker_died_is_redone(capsys, tmp_path, suffix):
    from fanscan.batch.files import list_files
    from fanscan.batch.rows import RETRY, error_row
    from fanscan.batch.table import TableWriter

    folder = folder_of(tmp_path, OK_PHOTOS)
    table = tmp_path / f"t{suffix}"
    batch(capsys, folder, table)
    kept = table.read_text(encoding="utf-8").splitlines(keepends=True)[: 1 + (suffix == ".csv")]
    table.write_text("".join(kept), encoding="utf-8")  # hand_001's row (after the header)
    with TableWriter(table) as writer:  # what the cluster writes for a photo whose worker died each time
        writer.write(error_row(list_files(folder).files[1], "not scored on the cluster (its worker died)",
                               status=RETRY))
    code, _, err = batch(capsys, folder, table)
    rows = csv_rows(table) if suffix == ".csv" else json_rows(table)
    assert code == 0 and sorted(r["file"] for r in rows) == sorted(OK_PHOTOS), err
    assert all(r["ok"] in (True, "True") for r in rows)
    assert "1 photo was not scored on the cluster (its Dask worker died)" in err
