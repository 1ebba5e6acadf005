"""Which packages the wheel holds, found rather than listed (pyproject.toml has the rest of the project's metadata).

One import name, `fanscan`: everything under `fanscan/`, and the design card's top-level folders (`scoring/`,
`vision/`, `models/`, `training/`) as its sub-packages, mapped from where they lie (no generic top-level `scoring`
or `vision` lands in site-packages). A hand-made list once left `fanscan.calibration` out of the wheel; discovery
takes every folder with an `__init__.py`, new ones included (tests/test_install_layout.py checks the built wheel
against the source tree).
"""

from setuptools import find_packages, setup

# Top-level folders of the checkout that install as `fanscan.FOLDER`.
MAPPED_FOLDERS = ("scoring", "vision", "models", "training")


def fanscan_packages() -> tuple[list[str], dict[str, str]]:
    """The package names under `fanscan` and the folder of each mapped one (its sub-packages follow from it)."""
    packages = find_packages(include=["fanscan", "fanscan.*"])
    package_dir = {}
    for folder in MAPPED_FOLDERS:
        name = f"fanscan.{folder}"
        package_dir[name] = folder
        packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]
    return packages, package_dir


if __name__ == "__main__":  # as setuptools runs it; tests/wheel_build.py reads MAPPED_FOLDERS without building
    packages, package_dir = fanscan_packages()
    setup(packages=packages, package_dir=package_dir)
