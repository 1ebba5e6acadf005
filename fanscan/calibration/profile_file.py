"""Writing a set profile file whole or not at all (the shared atomic writer: a temporary file beside it, renamed)."""

from __future__ import annotations

from pathlib import Path

from fanscan.labels.atomic import write_bytes
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import SetProfile, profile_bytes


def check_profile_path(path: str | Path) -> Path:
    """A path a profile can be written to, or a one-line error saying why not."""
    path = Path(path)
    if path.suffix.lower() != ".npz":
        raise FanscanError(f"{path}: a profile file must end in .npz")
    if not path.parent.is_dir():
        raise FanscanError(f"{path.parent}: no such folder for the profile")
    if path.exists() and not path.is_file():
        raise FanscanError(f"{path}: not a file (a profile is one .npz file)")
    return path


def save_profile(profile: SetProfile, path: str | Path) -> Path:
    """Write the profile at `path`, never half-written."""
    return write_bytes(check_profile_path(path), profile_bytes(profile))
