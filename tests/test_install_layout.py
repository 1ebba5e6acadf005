"""How the project installs and what the CLI loads: one top-level import name, and no training code at run time."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What a wheel is built from: the project file, the README it names, and the folders mapped into `fanscan.*`.
BUILD_INPUTS = ("pyproject.toml", "README.md", "fanscan", "scoring", "vision", "models", "training")


def test_importing_the_cli_and_every_command_loads_no_training_code_and_no_torch() -> None:
    probe = (
        "import json, sys\n"
        "import fanscan.cli\n"
        "fanscan.cli.build_parser()\n"
        "print(json.dumps({'commands': [m for m in fanscan.cli.COMMAND_MODULES if m in sys.modules],\n"
        "                  'loaded': sorted(sys.modules)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout)
    from fanscan.cli import COMMAND_MODULES

    assert report["commands"] == list(COMMAND_MODULES)  # the parser really imported every command module
    training = [m for m in report["loaded"] if m == "fanscan.training" or m.startswith("fanscan.training.")]
    torch = [m for m in report["loaded"] if m == "torch" or m.startswith("torch.")]
    assert training == [] and torch == []


def test_a_wheel_claims_only_the_fanscan_top_level_name(tmp_path: Path) -> None:
    source = tmp_path / "src"
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)]
    if importlib.util.find_spec("setuptools") is not None:
        command.insert(4, "--no-build-isolation")  # offline and fast; pip fetches setuptools itself otherwise
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("fanscan-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"fanscan"}
    # The design card's folders are there, under the one name, with the shipped models as package data.
    for module in ("fanscan/scoring/__init__.py", "fanscan/vision/pipeline.py", "fanscan/models/tile_detector.onnx",
                   "fanscan/models/tile_classifier.onnx", "fanscan/training/__init__.py", "fanscan/cli.py"):
        assert module in names
