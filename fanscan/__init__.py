"""fanscan, the application: CLI, batch scoring and labelling, composed from `scoring` and `vision`."""

from importlib.metadata import PackageNotFoundError, version

try:  # one source for the version: pyproject.toml, as installed
    __version__ = version("fanscan")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "unknown (not installed)"
