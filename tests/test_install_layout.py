"""How the project installs and what the CLI loads: one top-level import name, and no training code at run time."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from wheel_build import build_wheel, installed_path, source_files


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


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> list[str]:
    """The file names in a wheel built from a clean copy of the sources."""
    with zipfile.ZipFile(build_wheel(tmp_path_factory.mktemp("wheel"))) as archive:
        return archive.namelist()


def test_a_wheel_claims_only_the_fanscan_top_level_name(wheel_names) -> None:
    top_level = {name.split("/")[0] for name in wheel_names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"fanscan"}
    # The design card's folders are there, under the one name, with the shipped models as package data.
    for module in ("fanscan/scoring/__init__.py", "fanscan/vision/pipeline.py", "fanscan/models/tile_detector.onnx",
                   "fanscan/models/tile_classifier.onnx", "fanscan/training/__init__.py", "fanscan/cli.py",
                   "fanscan/calibration/fit.py", "fanscan/__main__.py"):
        assert module in wheel_names


def test_the_wheel_holds_every_file_of_the_source_tree(wheel_names) -> None:
    # Every module and data file of the package folders, at its place under `fanscan/` (a package listed by hand
    # once went missing: `fanscan calibrate` then died with ModuleNotFoundError in an installed copy), and nothing
    # that is not in the sources.
    expected = {installed_path(source) for source in source_files()}
    installed = {name for name in wheel_names if not name.split("/")[0].endswith(".dist-info")}
    assert sorted(expected - installed) == []
    assert sorted(installed - expected) == []
    # Every folder of Python modules is a package the wheel holds (a folder without `__init__.py` would be left out
    # by discovery, and by the comparison above only if it also held no data file).
    module_folders = {str(Path(s).parent) for s in source_files() if s.endswith(".py")}
    assert sorted(f for f in module_folders if f"{f}/__init__.py" not in source_files()) == []
