"""The product's figures: the browser and the server, batches on a Dask cluster and the 1-million-photo estimate
worked out from them, Label Studio, scoring speed and the differential test. Each function returns one block's text."""

from __future__ import annotations

from figure_sources import COMMANDS, load, median

from fanscan.batch.cluster import MAX_AUTO_CHUNK


def web_speed() -> str:
    """`fanscan serve` in a real browser: the table, whether each target holds, and where the server's time goes."""
    speed = load("web_speed")
    small, large, fix, targets = speed["photo_640"], speed["photo_12mp"], speed["fix"], speed["targets"]
    split, alone = large["server_split_median"], speed["server_breakdown_12mp"]
    loads = [step["load_average_1min"] for step in (small, large, fix)]

    def row(step: str, target: str, m: dict) -> str:
        return (f"| {step} | {target} | {m['page_ms_median']:.0f} ms | {m['server_ms_median']:.0f} ms "
                f"({m['server_cpu_ms_median']:.0f} ms) | {m['load_average_1min']:.2f} |")

    page_holds = (large["page_ms_median"] <= targets["photo_12mp_page_ms"]
                  and fix["page_ms_median"] <= targets["fix_page_ms"])
    server_holds = large["server_ms_median"] <= targets["photo_12mp_server_ms"]
    pipeline_ms = load("vision_speed")["photo_12mp"]["photo_to_proposal_ms"]
    return "\n".join([
        f"**Speed**, measured in real Chromium {speed['chromium']} (headless, 390×844) against `fanscan serve` on this "
        f"{speed['cpu_count']}-core machine (onnxruntime threads: detector {speed['onnxruntime_threads']['detector']}, "
        f"classifier {speed['onnxruntime_threads']['classifier']}) by `{COMMANDS['web_speed']}` (medians of "
        f"{small['runs']} after a warm-up; `benchmarks/results/web_speed.json`):",
        "",
        "| step | target | page, median | server, median (its CPU time) | load average |",
        "|---|---|---|---|---|",
        row(f"640-px photo ({small['bytes'] / 1000:.0f} KB) chosen → tiles shown", "", small),
        row(f"12-MP photo ({alone['full_size'].replace('x', '×')}, {large['bytes'] / 1e6:.1f} MB) chosen → tiles shown",
            f"≤ {targets['photo_12mp_page_ms']} ms, server ≤ {targets['photo_12mp_server_ms']} ms", large),
        row("tile fix → new reading", f"≤ {targets['fix_page_ms']} ms", fix),
        "",
        f"The browser and the server share this machine's {speed['cpu_count']} cores (a 1-minute load average of "
        f"{min(loads):.1f}–{max(loads):.1f} during the run), which stretches every wall time here. The page targets "
        f"{'hold' if page_holds else '**do not hold**'}; the 12-MP server part "
        f"{'holds' if server_holds else '**does not**'} ({large['server_ms_median']:.0f} ms against "
        f"{targets['photo_12mp_server_ms']}"
        + (f"; of it {large['server_upload_ms_median']:.0f} ms receiving the upload and "
           f"{large['server_work_ms_median']:.0f} ms of the server's own work" if "server_work_ms_median" in large
           else "")
        + f"). Where it goes, per request: detect {split['detect_ms']:.0f} ms, crop "
        f"{split['crop_ms']:.0f}, classify {split['classify_ms']:.0f}, group {split['group_ms']:.0f} (the proposal's "
        f"own timings), and {split['upload_decode_and_reply_ms']:.0f} ms for the rest — receiving the upload, "
        "decoding it and the reply. The page sends a JPEG over 1 MB scaled down (decoded at a reduced size by the "
        "browser's own decoder and re-encoded: \"What it sends\" above), which the server decodes coarse first at "
        f"{alone['working_size'].replace('x', '×')}"
        + (" (the tiles are large enough there for their crops, so it is not decoded again at the working size)"
           if alone.get("read_at_the_coarse_size") else "")
        + f"; the 12-MP file itself, sent as it is by a browser without that decoder, takes "
        f"{alone['load_and_scale_ms']:.0f} ms to decode so on the server (timed alone in the same run). The page "
        "decodes the photo for display once the server has answered, so that the two do not share the cores at the "
        "same moment. "
        f"Decoding and the pipeline together took {pipeline_ms:.0f} ms in `{COMMANDS['vision_speed']}` "
        f"({'under' if pipeline_ms <= targets['photo_12mp_server_ms'] else 'over'} the server target).",
    ])


BATCHES = (("in_process", "in-process (`fanscan batch photos/ --out t.jsonl`)"),
           ("workers_2", "`--workers 2` (local cluster started by the batch)"),
           ("scheduler_2_workers", "`--scheduler` (`dask scheduler` + 2 × `dask worker --nthreads 1`)"))


ASKED_RATIO = 1.3  # the end-to-end ratio the batch issue asked of `--workers 2`


def batch_throughput() -> str:
    """`fanscan batch` in-process against a Dask cluster: the table and what it says."""
    result = load("batch_throughput")
    loads = [run["load_average_before"] for kind, _ in BATCHES for run in result[kind]["runs"]]
    first_row = {kind: median([run["first_row_after_s"] for run in result[kind]["runs"]]) for kind, _ in BATCHES}
    ratio, steady = result["ratio_to_in_process"], result["steady_ratio_to_in_process"]
    lines = [
        f"Measured (`{COMMANDS['batch_throughput']}`: {result['photos']} photos, the "
        f"{result['photos'] // result['copies']} samples {result['copies']} times; {result['repeats']} rounds of the "
        f"three batches in rotating order, medians; on this {result['cpu_count']}-core machine; "
        "`benchmarks/results/batch_throughput.json`):",
        "",
        f"| batch | photos/s, end to end (median of {result['repeats']}) | ratio | from first row to last | ratio |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {label} | {result[kind]['median_photos_per_s']:.2f} | {ratio[kind]:.2f} | "
              f"{result[kind]['median_steady_photos_per_s']:.2f} | {steady[kind]:.2f} |" for kind, label in BATCHES]
    chunk = result["chunk"]
    per_task = (f"{chunk['photos_per_task']} photos a task, the batch's own choice for {result['photos']} photos on "
                f"{chunk['threads']} worker threads" if isinstance(chunk, dict) else f"`--chunk {chunk}`")
    lines += [
        "",
        f"Both cluster batches ran with {per_task}. The machine is shared: the load "
        f"average before each batch was {min(loads):.1f} to {max(loads):.1f}. Two "
        f"worker processes score {steady['workers_2']:.2f} times as many photos per second as one batch process once "
        "they run (in one process, only the models' inner loops use the second core); a cluster batch "
        "pays for its start, though: the local cluster's fork server and workers, or the connection to the "
        "scheduler, and the models loaded in each worker (its first row comes a median "
        f"{first_row['workers_2'] - first_row['in_process']:.1f} s after the in-process one's). So on "
        f"{result['photos']} photos `--workers 2` is {ratio['workers_2']:.2f} times the in-process batch end to end "
        f"({'at least' if ratio['workers_2'] >= ASKED_RATIO else 'not'} the {ASKED_RATIO} the issue asked for); the "
        f"external scheduler {ratio['scheduler_2_workers']:.2f} times.",
    ]
    return "\n".join(lines)


def batch_memory() -> str:
    """Peak memory of `fanscan batch` in process (benchmarks/batch_memory.py), and side by side with the commit before
    the batch read photos on threads (compare_batch_memory.json)."""
    result, side = load("batch_memory"), load("compare_batch_memory")
    this, earlier = side["medians"]["median_peak_mb"]["this"], side["medians"]["median_peak_mb"]["earlier"]
    wall_this, wall_earlier = side["medians"]["median_wall_s"]["this"], side["medians"]["median_wall_s"]["earlier"]
    return (f"Peak resident memory of the in-process batch: {result['median_peak_mb']:.0f} MB (median of "
            f"{len(result['runs'])} runs, {result['photos']} photos on {result['cpu_count']} cores: "
            f"`{COMMANDS['batch_memory']}`). Side by side with {side['earlier_commit'][:7]}, which read one photo at a "
            f"time ({side['rounds']} alternating rounds, `{COMMANDS['compare_batch_memory']}`): {this:.0f} vs "
            f"{earlier:.0f} MB, in {wall_this:.1f} vs {wall_earlier:.1f} s.")


def batch_memory_workers() -> str:
    """Peak memory of each process of a `--workers` batch (benchmarks/batch_memory.py --workers)."""
    result = load("batch_memory_workers")
    return (f"With `--workers {result['workers']}` ({result['photos']} photos, {len(result['runs'])} runs: "
            f"`{COMMANDS['batch_memory_workers']}`) the largest worker process peaked at a median "
            f"{result['median_largest_worker_mb']:.0f} MB, and the batch process itself at "
            f"{result['median_peak_mb']:.0f} MB (it scores photos too while the cluster starts)")


MACHINES, CORES = 50, 8  # the estimate's assumptions, not measurements


PHONE_PHOTO_MB = 4.0  # a 12-MP phone JPEG, assumed


DASK_TASK_MS = 1.0  # the scheduler's cost per task, Dask's own figure


NFS_GB_PER_S = 1.0  # a single NFS server, assumed


CHUNK = MAX_AUTO_CHUNK  # what `fanscan batch` chooses for a million photos unless `--chunk` says otherwise


def million_photos() -> str:
    """1 million photos on 50 machines, worked out from the measured speed of one process on one core."""
    speed, web, batch = load("vision_speed"), load("web_speed"), load("batch_throughput")
    ms_small, ms_large = speed["photo_640"]["photo_to_proposal_ms"], speed["photo_12mp"]["photo_to_proposal_ms"]
    workers = MACHINES * CORES
    rate_small, rate_large = workers * 1000 / ms_small, workers * 1000 / ms_large
    minutes_small, minutes_large = 1e6 / rate_small / 60, 1e6 / rate_large / 60
    small_kb = web["photo_640"]["bytes"] / 1000
    phone_tb = 1e6 * PHONE_PHOTO_MB / 1e6
    return "\n".join([
        f"**1 million photos on {MACHINES} machines, on paper.** From the speed of one process on one core of this "
        f"machine ({ms_small:.0f} ms per 640-px photo, {ms_large:.0f} ms per 12-MP photo: "
        f"`{COMMANDS['vision_speed']}`, "
        f"i.e. {1000 / ms_small:.0f} and {1000 / ms_large:.0f} photos/s) and assuming {CORES} cores per machine:",
        "",
        f"- **Compute.** {MACHINES} × {CORES} = {workers} worker processes (`dask worker --nthreads 1 --nworkers "
        f"{CORES}` on each) score ~{rate_small:,.0f} photos/s of the samples' kind ({small_kb:.0f} KB, 640 px): "
        f"1 million in ~{minutes_small:.1f} minutes of scoring. Phone photos (12 MP, ~{PHONE_PHOTO_MB:.0f} MB): "
        f"~{rate_large:,.0f} photos/s, ~{minutes_large:.1f} minutes.",
        f"- **The scheduler** spends about {DASK_TASK_MS:.0f} ms per task (Dask's own figure; here the benchmark's "
        "scheduler and client, sharing the busy cores with the workers, got through "
        f"{batch['scheduler_empty_tasks_per_s']:.0f} empty tasks/s: `{COMMANDS['batch_throughput']}`): one task per "
        f"photo would make it the bottleneck (1 million tasks at {DASK_TASK_MS:.0f} ms: "
        f"~{1e6 * DASK_TASK_MS / 1000 / 60:.0f} minutes). The default, {CHUNK} photos a task for a batch this size, "
        f"makes {1e6 / CHUNK:,.0f} tasks, "
        f"~{rate_small / CHUNK:,.0f} a second, and a worker that dies then redoes at most {CHUNK} photos per task it "
        "held.",
        f"- **Storage** decides for phone photos: 1 million × {small_kb:.0f} KB = {small_kb:.0f} GB "
        f"(~{rate_small * small_kb / 1e6:.1f} GB/s at full speed), but 1 million × {PHONE_PHOTO_MB:.0f} MB = "
        f"{phone_tb:.0f} TB (~{rate_large * PHONE_PHOTO_MB / 1000:.0f} GB/s to keep the workers busy: a parallel file "
        f"system; from a single NFS server at ~{NFS_GB_PER_S:.0f} GB/s the batch takes "
        f"~{phone_tb * 1000 / NFS_GB_PER_S / 60:.0f} minutes however many machines there are). By path, every worker "
        "reads from the shared file system; with `--send-bytes` it all goes through the batch machine's disk and "
        "network, which then sets the pace.",
    ])


def label_studio() -> str:
    result = load("label_studio_roundtrip")
    found = result["import_found_photos_by_local_files_path"]
    by_name = result["import_found_photos_by_name_with_images"]
    return (f"With Label Studio {result['label_studio_version']}: {found['boxes_matched']} of "
            f"{found['boxes_expected']} boxes back with their labels by path ({by_name['boxes_matched']} of "
            f"{by_name['boxes_expected']} by name), largest coordinate difference "
            f"{max(found['max_coordinate_difference_px'], by_name['max_coordinate_difference_px']):.4f} px (limit "
            f"{result['tolerance_px']} px); `{COMMANDS['label_studio_roundtrip']}`, "
            "`benchmarks/results/label_studio_roundtrip.json`")


def scoring_speed(name: str) -> str:
    result = load(name)
    wall = result["wall"]
    return (
        f"{result['hands']} random hands (parse + score + explanation, pure Python), {result['cpu_count']}-core "
        f"machine at load average {result['load_average_before'][0]:.1f}: median {wall['median_us']:.0f} µs, "
        f"p99 {wall['p99_us']:.0f} µs, worst {wall['worst_us'] / 1000:.1f} ms (wall clock); `{COMMANDS[name]}`")


def scoring_mcr() -> str:
    return scoring_speed("scoring")


def scoring_hk() -> str:
    return scoring_speed("scoring-hk")


def differential() -> str:
    result = load("differential")
    ties = result["categories"].get("equal_total_tie", 0)
    completeness = result["completeness"]
    return (f"`{result['command']}`: {result['hands']:,} hands (seed {result['seed']}), {result['same']:,} identical, "
            f"{ties} equal-total ties, {result['different']} different; the engines disagree on the completeness of "
            f"{completeness['disagree']} of {completeness['checked']:,} hands with one tile replaced. Under the "
            "default "
            f"variant {result['seed_variant_other_total']:,} of these hands "
            f"({result['seed_variant_other_total'] / result['hands']:.1%}) score another total")


def server_memory() -> str:
    """The server's resident memory through rounds of 50 concurrent requests (benchmarks/server_memory.py)."""
    result = load("server_memory")
    ends = [r["end_rss_mb"] for r in result["rounds"]]
    return (f"{result['rss_at_start_mb']:.0f} MB at start, {ends[0]:.0f} MB after the first round, "
            f"{ends[-1]:.0f} MB after the last ({len(ends)} rounds), peak {result['peak_rss_mb']:.0f} MB; "
            f"{result['server_errors']} server errors in {sum(result['statuses'].values())} requests")
