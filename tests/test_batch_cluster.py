"""`fanscan batch` on Dask (the `cluster` extra): a local cluster of two worker processes gives the same rows as the
in-process batch; a cluster batch killed with SIGKILL midway and run again ends with every photo exactly once; a
worker that cannot see the photos' folder gets their bytes. With the shipped models (skipped without them or Dask).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_cli_photo import MODELS, SAMPLES, run_cli

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(not all(p.exists() for p in MODELS), reason="the shipped models are not built yet")

COMPARED = ("ok", "status", "hand", "total", "error")


def photos(folder: Path, names, copies: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for copy in range(copies):
        for name in names:
            (folder / f"{copy}_{name}").write_bytes((SAMPLES / "images" / name).read_bytes())
    return folder


def rows_by_file(table: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in table.read_text(encoding="utf-8").splitlines()]
    by_file = {row["file"]: row for row in rows}
    assert len(by_file) == len(rows), "a file with two rows"
    return by_file


def test_two_worker_processes_give_the_in_process_rows(capsys, tmp_path):
    folder = photos(tmp_path / "photos", ("hand_001.jpg", "hand_007.jpg", "hand_016.jpg", "hand_020.jpg"))
    (folder / "notes.txt").write_text("not a photo")
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    code_here, _, _ = run_cli(["batch", str(folder), "--out", str(here), "--self-drawn"], capsys)
    code_there, _, err = run_cli(["batch", str(folder), "--out", str(there), "--self-drawn", "--workers", "2",
                                  "--send-bytes", "--chunk", "3"], capsys)
    assert "2 workers, 2 threads" in err
    expected, got = rows_by_file(here), rows_by_file(there)
    assert set(got) == set(expected) == {p.name for p in folder.iterdir()}
    assert sum(r["ok"] for r in expected.values()) >= 2  # the comparison covers scored hands, not only errors
    for name, row in expected.items():
        assert {k: got[name].get(k) for k in COMPARED} == {k: row.get(k) for k in COMPARED}, name
    assert code_there == code_here == 1


def cluster_rows_begun(progress_lines, after: int) -> bool:
    """Read `--json-progress` lines until `after` rows have come from the cluster (the batch scores photos itself
    while the cluster starts: those rows come before its "Dask: ..." note). False when the batch ended first."""
    from_cluster = None
    for line in progress_lines:
        event = json.loads(line)
        if event["event"] == "note" and event["text"].startswith("Dask:"):
            from_cluster = 0
        elif event["event"] == "row" and from_cluster is not None:
            from_cluster += 1
            if from_cluster == after:
                return True
    return False


def test_a_cluster_batch_killed_midway_resumes_with_every_photo_once(tmp_path):
    folder = photos(tmp_path / "photos", sorted(p.name for p in (SAMPLES / "images").glob("*.jpg")), copies=3)
    table = tmp_path / "scores.jsonl"
    command = [sys.executable, "-m", "fanscan.cli", "batch", str(folder), "--out", str(table), "--workers", "2"]
    batch = subprocess.Popen([*command, "--json-progress"], stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        killed_midway = cluster_rows_begun(batch.stderr, after=3)
        batch.send_signal(signal.SIGKILL)  # the batch process only: its scheduler with it, its workers orphaned
        batch.wait(timeout=30)
    finally:
        time.sleep(0.5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(batch.pid, signal.SIGKILL)  # the orphaned workers of the killed batch, if any are left
        batch.stderr.close()
    rows_at_kill = table.read_bytes().count(b"\n")
    assert killed_midway and rows_at_kill < 60, "not killed while the cluster was scoring"
    again = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert again.returncode == 1, again.stderr[-2000:]  # hand_020 and the 13-tile photos are error rows
    files = [json.loads(line)["file"] for line in table.read_text(encoding="utf-8").splitlines()]
    assert collections.Counter(files) == collections.Counter(p.name for p in folder.iterdir())
    assert f"{rows_at_kill} of 60 files already in" in again.stderr


def test_the_batch_scores_photos_itself_while_the_cluster_starts(tmp_path, monkeypatch, capsys):
    from fanscan.batch import cluster as batch_cluster

    folder = photos(tmp_path / "photos", ("hand_001.jpg", "hand_007.jpg", "hand_016.jpg", "hand_020.jpg"),
                    copies=2)
    scored_here = []
    cluster_ready = threading.Event()
    real_score_job, real_ready_client = batch_cluster.score_job, batch_cluster._ready_client

    def counted_score_job(job, settings):  # the batch's own scoring: the third photo waits for the cluster
        scored_here.append(job.file.key)
        row = real_score_job(job, settings)
        if len(scored_here) == 3:
            cluster_ready.wait(60)
            time.sleep(0.2)  # for the starting thread to return
        return row

    def slow_ready_client(stack, scheduler, workers, settings, log):  # a cluster that takes 3 photos to start
        ready = real_ready_client(stack, scheduler, workers, settings, log)
        while len(scored_here) < 3:
            time.sleep(0.01)
        cluster_ready.set()
        return ready

    monkeypatch.setattr(batch_cluster, "score_job", counted_score_job)
    monkeypatch.setattr(batch_cluster, "_ready_client", slow_ready_client)
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    run_cli(["batch", str(folder), "--out", str(here)], capsys)
    _, _, err = run_cli(["batch", str(folder), "--out", str(there), "--workers", "2"], capsys)
    assert len(scored_here) == 3, scored_here  # then the workers took the other 5
    assert "3 photos scored here while it started" in err
    expected, got = rows_by_file(here), rows_by_file(there)
    assert set(got) == set(expected) == {p.name for p in folder.iterdir()}
    for name, row in expected.items():
        assert {k: got[name].get(k) for k in COMPARED} == {k: row.get(k) for k in COMPARED}, name


def test_a_worker_that_cannot_see_the_folder_gets_the_bytes(tmp_path, monkeypatch):
    from fanscan.batch import rows as batch_rows
    from fanscan.batch.cluster import _stream
    from fanscan.batch.files import list_files
    from fanscan.batch.rows import PhotoJob, score_job
    from fanscan.batch.settings import batch_settings
    from fanscan.batch.worker import PLUGIN_NAME, ModelLoader

    folder = photos(tmp_path / "photos", ("hand_001.jpg", "hand_007.jpg", "hand_016.jpg"))
    files = list_files(folder).files
    settings = batch_settings(__import__("argparse").Namespace(rules="mcr", self_drawn=True))
    expected = {f.key: score_job(PhotoJob(f), settings) for f in files}
    monkeypatch.setattr(batch_rows, "worker_sees", lambda path: False)  # the worker threads run in this process
    notes: list[str] = []
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        client.register_plugin(ModelLoader(), name=PLUGIN_NAME)
        got = {row["file"]: row for row in _stream(client, files, settings, False, in_flight=4, note=notes.append,
                                                                   chunk=2)}
    assert any("sending those photos as bytes" in note for note in notes)
    for key, row in expected.items():
        assert {k: got[key].get(k) for k in COMPARED} == {k: row.get(k) for k in COMPARED}


def test_a_worker_killed_midway_has_its_photos_redone_once(tmp_path):
    folder = photos(tmp_path / "photos", sorted(p.name for p in (SAMPLES / "images").glob("*.jpg")))
    table = tmp_path / "scores.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        victim = sorted(client.run(os.getpid).items())[0][1]
        batch = subprocess.Popen([sys.executable, "-m", "fanscan.cli", "batch", str(folder), "--out", str(table),
                                  "--scheduler", cluster.scheduler_address, "--json-progress"],
                                 stderr=subprocess.PIPE, text=True)
        assert cluster_rows_begun(batch.stderr, after=3), "the batch ended before the cluster scored 3 photos"
        os.kill(victim, signal.SIGKILL)  # its nanny starts a new worker; Dask reschedules its photos
        rest = batch.stderr.read()
        assert batch.wait(timeout=120) == 1, rest[-2000:]
        assert victim not in client.run(os.getpid).values()  # the worker was really killed and replaced
    rows = [json.loads(line) for line in table.read_text(encoding="utf-8").splitlines()]
    assert collections.Counter(r["file"] for r in rows) == collections.Counter(p.name for p in folder.iterdir())
    assert not any("not scored on the cluster" in (r.get("error") or "") for r in rows)


@pytest.mark.parametrize("photos", [1, 31, 32, 64, 65, 260, 511, 512, 10_000, 1_000_000])
@pytest.mark.parametrize("threads", [1, 2, 8, 400])
def test_the_default_chunk_gives_each_thread_many_tasks_of_at_most_16_photos(photos, threads):
    from fanscan.batch.cluster import auto_chunk

    chunk = auto_chunk(photos, threads)
    tasks = -(-photos // chunk)
    assert 1 <= chunk <= 16
    if chunk > 1:  # grouping photos never leaves a thread fewer than 16 tasks...
        assert tasks >= 16 * threads
    if chunk < 16:  # ...and one more photo a task would leave a thread fewer than 16 full tasks
        assert photos // (chunk + 1) < 16 * threads


@pytest.mark.parametrize("photos, chunk, threads", [(1, 1, 1), (7, 4, 1), (248, 8, 2), (10_000, 16, 400),
                                                     (1_000_000, 16, 400), (100, 16, 2)])
def test_tasks_hold_every_photo_once_and_shrink_to_single_photos_at_the_end(photos, chunk, threads):
    from fanscan.batch.cluster import task_sizes

    sizes = list(task_sizes(photos, chunk, threads))
    assert sum(sizes) == photos and all(1 <= size <= chunk for size in sizes)
    assert sizes == sorted(sizes, reverse=True)  # long tasks first, short ones last
    assert sizes[-min(len(sizes), threads):] == [1] * min(len(sizes), threads)  # every thread ends on one photo
    if photos >= 4 * chunk * threads:
        assert sizes[0] == chunk  # full chunks while plenty is left


def test_workers_start_in_a_folder_that_holds_a_clone_of_fanscan(tmp_path):
    """Run from the folder that holds the clone, a `fanscan/` folder without `__init__.py` is in the current folder:
    a process with the current folder on `sys.path` (as `python -c` puts it) imports it as a namespace package
    `fanscan` ahead of the installed one (an editable install's finder comes after the path). The workers must import
    fanscan as the batch process does."""
    holder = tmp_path / "src"
    (holder / "fanscan" / "vision").mkdir(parents=True)  # a clone: vision/, scoring/... but no fanscan/__init__.py
    folder = photos(tmp_path / "photos", ("hand_001.jpg", "hand_002.jpg"))
    launcher = tmp_path / "bin" / "fanscan"  # as the console script: its own folder on sys.path, not the current one
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom fanscan.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    table = tmp_path / "scores.jsonl"
    done = subprocess.run([sys.executable, str(launcher), "batch", str(folder), "--out", str(table), "--workers", "2"],
                          cwd=holder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]  # both hands score
    assert "2 workers, 2 threads" in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert sorted(rows_by_file(table)) == ["0_hand_001.jpg", "0_hand_002.jpg"]


def process_children() -> dict[int, list[int]]:
    """Each process's children, from /proc (Linux)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            children[int(stat.read_text().rsplit(")", 1)[1].split()[1])].append(int(stat.parent.name))
    return children


def local_workers(batch: int) -> list[int]:
    """The worker processes of a batch's local cluster: the children of its fork server (a child of the batch)."""
    children = process_children()
    servers = [pid for pid in children[batch]
               if "multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]
    return [worker for server in servers for worker in children[server]]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the batch's workers in /proc")
def test_photos_whose_worker_died_are_retried_and_json_progress_stays_json(tmp_path):
    """With `allowed-failures` 0 a task whose worker dies fails at once (Dask's scheduler logs an ERROR): its photos
    get rows of status `retry`, which the next run scores; with `--json-progress` every stderr line is JSON."""
    folder = photos(tmp_path / "photos", sorted(p.name for p in (SAMPLES / "images").glob("*.jpg")), copies=3)
    table = tmp_path / "scores.jsonl"
    command = [sys.executable, "-m", "fanscan.cli", "batch", str(folder), "--out", str(table), "--workers", "2",
               "--chunk", "4"]
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    batch = subprocess.Popen([*command, "--json-progress"], stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []

    def kept(stream):
        for line in stream:
            lines.append(line)
            yield line

    workers: list[int] = []
    try:
        begun = cluster_rows_begun(kept(batch.stderr), after=1)
        workers = local_workers(batch.pid)
        for pid in workers:  # both, each busy with a task of 4 photos
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        lines += batch.stderr.readlines()
        assert batch.wait(timeout=300) == 1
    finally:
        if batch.poll() is None:
            batch.kill()
    assert begun and workers, "the batch ended before the cluster scored a photo"
    events = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a line of --json-progress that is not JSON: {line!r}")
    assert any(e["event"] == "log" and "died" in e["text"] for e in events), events[-5:]
    assert not any(e["event"] == "log" and e["level"] in ("debug", "info") for e in events)  # only what went wrong
    first = rows_by_file(table)
    retried = {name for name, row in first.items() if row.get("status") == "retry"}
    assert retried and all("its worker died" in first[name]["error"] for name in retried)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1, again.stderr[-2000:]  # hand_020 and the 13-tile photos are error rows
    rows = rows_by_file(table)
    assert set(rows) == {p.name for p in folder.iterdir()}
    assert not any(row.get("status") == "retry" for row in rows.values())
    assert f"{len(retried)} of 60 files already in" not in again.stderr  # the retried ones were done again
    assert f"{60 - len(retried)} of 60 files already in" in again.stderr


def test_what_the_workers_write_on_stderr_goes_to_the_log_function(tmp_path):
    script = tmp_path / "workers.py"
    script.write_text(
        "import json, multiprocessing, os, sys, time\n"
        "from fanscan.batch.cluster import start_worker_fork_server\n"
        "def say():\n"
        "    os.write(2, b'a line from a worker\\n')\n"
        "if __name__ == '__main__':\n"
        "    got = []\n"
        "    start_worker_fork_server(lambda source, level, text: got.append([source, level, text]))\n"
        "    worker = multiprocessing.get_context('forkserver').Process(target=say)\n"
        "    worker.start(); worker.join()\n"
        "    for _ in range(100):\n"
        "        if got: break\n"
        "        time.sleep(0.1)\n"
        "    print(json.dumps(got))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ["worker", None, "a line from a worker"] in json.loads(done.stdout)
    assert "a line from a worker" not in done.stderr
