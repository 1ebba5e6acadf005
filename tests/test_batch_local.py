"""The in-process batch reads photos side by side on threads (`fanscan.batch.local`): the same rows, in the order of
the files, a bounded number in flight, and the pipeline settings put back afterwards."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
from fanscan.vision import pipeline

from fanscan.batch import local
from fanscan.batch.files import BatchFile
from fanscan.batch.settings import batch_settings
from fanscan.cli import build_parser

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "images"


def files(paths):
    return [BatchFile(key=p.name, where=str(p), path=str(p.resolve())) for p in paths]


def settings():
    return batch_settings(build_parser().parse_args(["batch", str(SAMPLES)]))


def test_rows_come_in_file_order_with_as_many_photos_at_once_as_threads(monkeypatch):
    running, most, lock = [0], [0], threading.Lock()
    started: list[str] = []

    def stand_in(job, _settings):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            started.append(job.file.key)
        time.sleep(0.02 if job.file.key.endswith(("0", "3")) else 0.005)  # some photos slower than the next
        with lock:
            running[0] -= 1
        return {"file": job.file.key, "ok": True}

    monkeypatch.setattr(local, "score_job", stand_in)
    names = [BatchFile(key=f"photo{i}", where=f"photo{i}", path=f"/nowhere/photo{i}") for i in range(12)]
    yielded = 0
    for row in local.local_rows(names, {"profile": None}, threads=3):
        assert row["file"] == f"photo{yielded}"
        yielded += 1
        # never more than IN_FLIGHT_PER_THREAD photos a thread started ahead of what the consumer has taken
        assert len(started) - yielded <= 3 * local.IN_FLIGHT_PER_THREAD
    assert yielded == 12 and most[0] == 3


def test_threads_give_the_rows_one_thread_gives():
    photos = files(sorted(SAMPLES.glob("*.jpg"))[:6])
    one = [{k: v for k, v in row.items() if k != "ms"} for row in local.local_rows(photos, settings(), threads=1)]
    two = [{k: v for k, v in row.items() if k != "ms"} for row in local.local_rows(photos, settings(), threads=2)]
    assert one == two and len(one) == 6 and all(row["file"] == p.key for row, p in zip(one, photos, strict=True))


def test_one_thread_per_call_puts_the_settings_back():
    before = (pipeline.default_threads(), cv2.getNumThreads())
    with local.one_thread_per_call():
        assert pipeline.default_threads() == 1 and cv2.getNumThreads() == 1
        model = pipeline.default_pipeline().classifier
        assert model.session.get_session_options().intra_op_num_threads == 1
    assert (pipeline.default_threads(), cv2.getNumThreads()) == before


def test_one_malloc_arena_is_set_where_the_c_library_is_glibc():
    import platform

    assert local.one_malloc_arena() is (platform.libc_ver()[0] == "glibc")


def test_the_batch_command_sets_one_malloc_arena_before_its_threads_start(monkeypatch, tmp_path):
    from fanscan.cli import main

    events = []
    monkeypatch.setattr(local, "one_malloc_arena", lambda: events.append("arena") or True)
    real_rows = local.local_rows

    def rows(todo, settings):
        events.append("rows")
        return real_rows(todo, settings)

    monkeypatch.setattr(local, "local_rows", rows)
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes((SAMPLES / "hand_001.jpg").read_bytes())
    assert main(["batch", str(folder), "--out", str(tmp_path / "t.jsonl")]) == 0
    assert events == ["arena", "rows"]
