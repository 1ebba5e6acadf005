"""The settings that produce a batch table's rows (rules, win context, profile, model versions), recorded beside the
table so that a resume never mixes rows made under different settings."""

from __future__ import annotations

import argparse
import json
from functools import cache
from pathlib import Path
from typing import Any

from fanscan import models
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import file_sha256

# Bumped when the meaning of a recorded setting changes; a table recorded under another format is not resumed.
SETTINGS_FORMAT = 1
# A sha256 prefix this long tells model files apart (collisions between two trained models are not a concern).
HASH_CHARS = 16


@cache
def context_flag_names() -> tuple[str, ...]:
    """The argument names of the win-context flags that `fanscan batch` shares with `fanscan photo`."""
    from fanscan.commands.photo import add_context_arguments

    parser = argparse.ArgumentParser(add_help=False)
    add_context_arguments(parser)
    return tuple(action.dest for action in parser._actions)


def file_version(path: Path) -> str:
    """`sha256:` and the first hex digits of a file's hash; `missing` when there is no such file."""
    if not path.is_file():
        return "missing"
    return f"sha256:{file_sha256(path)[:HASH_CHARS]}"


def model_versions() -> dict[str, str]:
    """The shipped models this process would load, by file name, with their versions (hash prefixes)."""
    return {name: file_version(models.model_path(name))
            for name in (models.DETECTOR, models.CLOSE_UP_DETECTOR, models.CLASSIFIER, models.PROFILE_CLASSIFIER)}


def batch_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of a batch run, as recorded in the table's sidecar (JSON-ready)."""
    return {
        "format": SETTINGS_FORMAT,
        "rules": args.rules,
        "context": {name: getattr(args, name, None) for name in context_flag_names()},
        "accept_overrides": bool(getattr(args, "accept_overrides", False)),
        "profile": getattr(args, "profile", None),
        # the profile's content, not only its path: a profile rebuilt under the same name reads tiles differently
        "profile_version": file_version(Path(args.profile)) if getattr(args, "profile", None) else None,
        "models": model_versions(),
    }


def settings_namespace(settings: dict[str, Any]) -> argparse.Namespace:
    """The settings as the argument namespace the photo command's helpers read (rules, profile, review and context
    flags, the variant among them)."""
    return argparse.Namespace(rules=settings["rules"], profile=settings.get("profile"),
                              accept_overrides=settings.get("accept_overrides", False), **settings["context"])


def settings_differences(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What differs between two settings records, one `name: recorded -> current` item each (empty when none)."""
    differences = []
    for key in sorted(set(recorded) | set(current)):
        old, new = recorded.get(key), current.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            differences += [f"{key}.{d}" for d in settings_differences(old, new)]
        elif old != new:
            differences.append(f"{key}: {old!r} -> {new!r}")
    return differences


def normalised(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings as they read back from JSON (tuples become lists), so that a record compares equal to itself."""
    return json.loads(json.dumps(settings))


def record_settings(record: Path, settings: dict[str, Any]) -> None:
    """Write the settings record of a table that starts anew."""
    try:
        record.write_text(json.dumps(settings, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        raise FanscanError(f"{record}: cannot write the table's settings ({error.strerror})") from None


def check_settings(record: Path, table: Path, settings: dict[str, Any]) -> None:
    """Refuse to resume `table` (which has rows) unless its record says it was made with these settings."""
    again = "run with the settings it was made with, add --restart to start it anew, or use another --out"
    try:
        recorded = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FanscanError(f"{table}: has rows but no record of the settings that made them ({record.name}); "
                           "add --restart to start it anew, or use another --out") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise FanscanError(f"{record}: the settings record is damaged; add --restart to start the table anew, "
                           "or use another --out") from None
    if not isinstance(recorded, dict):
        raise FanscanError(f"{record}: the settings record is damaged; add --restart to start the table anew")
    differences = settings_differences(recorded, normalised(settings))
    if differences:
        raise FanscanError(f"{table} was made with other settings ({'; '.join(differences)}); {again}")
