"""A speed benchmark run side by side on this checkout and on an earlier commit, in alternating rounds: the one way a
speed claim is made here (a ratio measured in one run, since the machine's speed drifts by a third within minutes).

    python benchmarks/compare_commits.py --against 34acc50 -- vision_speed --repeat 20
    python benchmarks/compare_commits.py --against 34acc50 --rounds 3 -- batch_throughput --repeats 1
    python benchmarks/compare_commits.py --against 34acc50 --rounds 3 -- batch_memory --runs 3

The earlier commit is exported (`git archive`) into a temporary folder. Each side is imported from an import root of
its own (a folder holding `fanscan/` as its packaging maps it: `fanscan/` plus `scoring/`, `vision/`,
`models/`, `training/` under it, as symbolic links), put first on `PYTHONPATH`, so both sides load their own code and
their own model files, and neither uses the installed copy (checked before the first round). The benchmark script is
this checkout's `benchmarks/NAME.py`, for both sides: the same measurement of two code trees. Rounds alternate the
order (this, earlier; earlier, this; ...). Every number in the benchmark's JSON whose key ends in `_ms`, `_s`,
`per_s` or `_mb` (memory, `batch_memory.py`) is reduced to its median over the rounds per side, with the ratio
this / earlier.
Writes `benchmarks/results/compare_NAME.json` (or `--json`).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

from results_file import ROOT, write_json

MEASURED_SUFFIXES = ("_ms", "_s", "per_s", "_mb")  # times, rates, memory


def export_commit(commit: str, into: Path) -> tuple[Path, str]:
    """The tree of `commit` unpacked in `into`, and the commit's full hash."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                          capture_output=True, text=True)
    if full.returncode != 0:
        raise SystemExit(f"compare_commits: {commit!r} is not a commit of {ROOT}")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", full.stdout.strip()],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into, full.stdout.strip()


def mapped_folders(checkout: Path) -> dict[str, str]:
    """The checkout's folders that install as `fanscan.NAME`: `setup.py`'s `MAPPED_FOLDERS` where it has one (read,
    not run), else `pyproject.toml`'s `[tool.setuptools.package-dir]` (the layout before `setup.py`)."""
    setup = checkout / "setup.py"
    if setup.is_file():
        for node in ast.walk(ast.parse(setup.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MAPPED_FOLDERS" for t in node.targets):
                return {folder: folder for folder in ast.literal_eval(node.value)}
    import tomllib  # Python 3.11+, as the benchmarks run here

    config = tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))
    mapped = config.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return {name.split(".", 1)[1]: folder for name, folder in mapped.items()
            if name.startswith("fanscan.") and name.count(".") == 1}


def import_root(checkout: Path, into: Path) -> Path:
    """A folder that imports as the checkout's `fanscan` package, its mapped folders under it."""
    package = into / "fanscan"
    package.mkdir(parents=True)
    for entry in (checkout / "fanscan").iterdir():
        (package / entry.name).symlink_to(entry.resolve())
    for name, folder in mapped_folders(checkout).items():
        (package / name).symlink_to((checkout / folder).resolve())
    return into


def side_env(root: Path) -> dict[str, str]:
    """The environment of one side: its import root first, then this folder (the scripts import their siblings);
    `PYTHONSAFEPATH` keeps the working directory (a checkout holds a `fanscan/` folder) off `sys.path`, for the
    benchmark and for every Python process it starts."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(ROOT / "benchmarks"), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONSAFEPATH"] = "1"
    return env


def check_imports(root: Path) -> None:
    """Both sides must import their own tree, not the installed fanscan nor the checkout's `fanscan/` folder."""
    probe = "import fanscan.vision.pipeline as p, fanscan.models as m; print(p.__file__); print(m.__file__)"
    out = subprocess.run([sys.executable, "-c", probe], env=side_env(root), capture_output=True, text=True, cwd=ROOT)
    files = out.stdout.split()
    if out.returncode != 0 or len(files) != 2 or not all(f.startswith(str(root)) for f in files):
        raise SystemExit(f"compare_commits: the import root {root} does not load its own code "
                         f"({out.stdout.strip() or out.stderr.strip()[-300:]})")


def measured_leaves(data: Any, prefix: str = "") -> dict[str, float]:
    """Every number in `data` whose key ends in a measured suffix (`MEASURED_SUFFIXES`), by its dotted path."""
    found: dict[str, float] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if (isinstance(value, (int, float)) and not isinstance(value, bool)
                    and str(key).endswith(MEASURED_SUFFIXES)):
                found[path] = float(value)
            else:
                found.update(measured_leaves(value, path))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found.update(measured_leaves(value, f"{prefix}[{i}]"))
    return found


def run_side(script: Path, args: list[str], root: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, str(script), *args, "--json", str(out)], env=side_env(root),
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"compare_commits: {script.name} failed on {root}:\n{done.stderr.strip()[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def compare(rounds: dict[str, list[dict]]) -> dict[str, dict[str, float | None]]:
    """Per measured value: the median over rounds for each side, and this / earlier."""
    this = [measured_leaves(r) for r in rounds["this"]]
    earlier = [measured_leaves(r) for r in rounds["earlier"]]
    table: dict[str, dict[str, float | None]] = {}
    for key in sorted(set().union(*this) & set().union(*earlier)):
        a = statistics.median(r[key] for r in this if key in r)
        b = statistics.median(r[key] for r in earlier if key in r)
        table[key] = {"this": round(a, 3), "earlier": round(b, 3), "ratio": round(a / b, 3) if b else None}
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s --against COMMIT [--rounds N] -- BENCHMARK [its arguments]")
    parser.add_argument("--against", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--json", type=Path, help="where to write (default benchmarks/results/compare_NAME.json)")
    parser.add_argument("benchmark", nargs=argparse.REMAINDER, help="-- NAME [arguments]: benchmarks/NAME.py")
    args = parser.parse_args(argv)
    rest = args.benchmark[1:] if args.benchmark[:1] == ["--"] else args.benchmark
    if not rest:
        parser.error("name the benchmark after --, e.g. -- vision_speed")
    name, bench_args = rest[0].removesuffix(".py"), rest[1:]
    script = ROOT / "benchmarks" / f"{name}.py"
    if not script.is_file():
        parser.error(f"no benchmark {script}")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="fanscan-compare-") as tmp:
        tmp_path = Path(tmp)
        earlier_tree, earlier_commit = export_commit(args.against, tmp_path / "earlier")
        roots = {"this": import_root(ROOT, tmp_path / "this-root"),
                 "earlier": import_root(earlier_tree, tmp_path / "earlier-root")}
        for root in roots.values():
            check_imports(root)
        results: dict[str, list[dict]] = {"this": [], "earlier": []}
        for r in range(args.rounds):
            order = ("this", "earlier") if r % 2 == 0 else ("earlier", "this")
            for side in order:
                print(f"round {r + 1}/{args.rounds}: {side}", file=sys.stderr, flush=True)
                results[side].append(run_side(script, bench_args, roots[side], tmp_path / f"{side}-{r}.json"))
    result = {"benchmark": name, "arguments": bench_args, "this_commit": head, "this_has_uncommitted_changes": dirty,
              "earlier_commit": earlier_commit, "rounds": args.rounds, "cpu_count": os.cpu_count(),
              "load_average_after": round(os.getloadavg()[0], 2), "medians": compare(results), "runs": results}
    out = args.json or ROOT / "benchmarks" / "results" / f"compare_{name}.json"
    write_json(out, result)
    width = max((len(k) for k in result["medians"]), default=10)
    print(f"{'':{width}}  {'this':>10} {'earlier':>10} {'ratio':>7}")
    for key, row in result["medians"].items():
        print(f"{key:{width}}  {row['this']:>10} {row['earlier']:>10} {row['ratio']!s:>7}")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
