"""Build the project's wheel from a clean copy of the source tree, and say where each source file lands in it.

Shared by tests/test_install_layout.py (the wheel holds the whole source tree) and .ci/smoke_wheel.py (the wheel,
installed in a fresh virtual environment, runs every command). The copy keeps a stale `build/` folder of the
checkout out of the wheel, so the wheel holds what the sources say, nothing left over.
"""

from __future__ import annotations

import importlib.util
import runpy
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Besides the package folders: the project file, setup.py (package discovery) and the README the project file names.
PROJECT_FILES = ("pyproject.toml", "setup.py", "README.md")
# Source files that are never installed.
SKIPPED_SUFFIXES = (".pyc", ".pyo")


def mapped_folders() -> tuple[str, ...]:
    """The top-level folders setup.py installs as `fanscan.FOLDER` (read from it, without building)."""
    return tuple(runpy.run_path(str(ROOT / "setup.py"), run_name="wheel_build")["MAPPED_FOLDERS"])


def package_folders() -> tuple[str, ...]:
    return ("fanscan", *mapped_folders())


def source_files() -> list[str]:
    """The files of the package folders, relative to the checkout: those git tracks or would track (not ignored),
    or, outside a git checkout, every file there but caches."""
    folders = package_folders()
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *folders],
                                cwd=ROOT, capture_output=True, text=True, check=True, timeout=60).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(ROOT)) for folder in folders for p in (ROOT / folder).rglob("*") if p.is_file()]
    return sorted(path for path in listed
                  if (ROOT / path).is_file() and "__pycache__" not in Path(path).parts
                  and not path.endswith(SKIPPED_SUFFIXES))


def installed_path(source: str) -> str:
    """Where a source file of a package folder lies in the wheel: `fanscan/cli.py` stays, `scoring/hk.py` becomes
    `fanscan/scoring/hk.py`."""
    return source if source.split("/")[0] == "fanscan" else f"fanscan/{source}"


def can_build_without_isolation() -> bool:
    """Whether this Python can build the wheel itself: pyproject.toml's build requirements (setuptools >= 68 and
    `wheel`; setuptools 70.1 and later build wheels alone). A venv's own setuptools 65 cannot, whatever the system
    Python has."""
    try:
        found = version("setuptools")
    except PackageNotFoundError:
        return False
    numbers = tuple(int(part) if part.isdigit() else 0 for part in found.split(".")[:2])
    return numbers >= (70, 1) or (numbers >= (68, 0) and importlib.util.find_spec("wheel") is not None)


def build_wheel(work: Path) -> Path:
    """Copy the sources to `work`/src, build the wheel into `work`/dist (no dependencies, no network when setuptools
    is installed) and return its path."""
    source = work / "src"
    source.mkdir(parents=True)
    for name in (*PROJECT_FILES, *source_files()):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)]
    if can_build_without_isolation():
        command.insert(4, "--no-build-isolation")  # offline and fast; pip fetches the build backend otherwise
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    (wheel,) = (work / "dist").glob("fanscan-*.whl")
    return wheel
