"""The JSON bodies of the API. Field names are those of the `fanscan score` flags, so a request becomes the flags of
the command it stands for, parsed by that command's own parser (`command_args`)."""

from __future__ import annotations

import argparse
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fanscan.scoring.errors import FanscanError

Wind = Literal["E", "S", "W", "N"]
Rules = Literal["mcr", "hk"]


class WinContextFields(BaseModel):
    """The win context, as the flags of `fanscan score` (all optional; a hand string's own `|` part is extended by
    them, and a contradiction is an error, as on the command line)."""

    model_config = ConfigDict(extra="forbid")

    self_drawn: bool = False
    discard: bool = False
    seat_wind: Wind | None = None
    prevalent_wind: Wind | None = None
    last_tile: bool = False
    last_of_kind: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    flower_replacement: bool = Field(False, description="HK only: won on the replacement tile after a flower")
    kong_on_kong: bool = Field(False, description="HK only: won on the replacement after two consecutive kongs")
    first_tile: bool = Field(False, description="HK only: Bless of Heaven / Earth")
    flowers: str | None = Field(None, description="letters a-h (plum orchid bamboo chrysanthemum spring summer "
                                                  "autumn winter) or a count 0-8", examples=["ac"])

    def as_flags(self) -> list[str]:
        """The same context as command-line flags: `self_drawn=True` -> `--self-drawn`, `seat_wind="S"` ->
        `--seat-wind S`; fields left at their defaults give no flag."""
        if self.self_drawn and self.discard:
            raise FanscanError("self_drawn and discard exclude each other: give one")
        flags: list[str] = []
        for name, value in self.model_dump().items():
            option = "--" + name.replace("_", "-")
            if value is True:
                flags.append(option)
            elif isinstance(value, str):
                flags += [option, value]
        return flags


@lru_cache(maxsize=1)
def _command_parser() -> argparse.ArgumentParser:
    from fanscan.cli import build_parser

    return build_parser()


def command_args(command: str, positional: str, rules: str, context: WinContextFields | None = None,
                 profile: str | None = None) -> argparse.Namespace:
    """What `fanscan COMMAND --rules RULES [--profile PROFILE] FLAGS -- POSITIONAL` parses to: a request goes down the
    command's own code path with the command's own defaults for every option the page does not set. `profile` is
    the server's set profile (`fanscan serve --profile`), for the commands that read photos."""
    server_flags = ["--profile", profile] if profile else []
    argv = [command, "--rules", rules, *server_flags, *(context or WinContextFields()).as_flags(), "--", positional]
    try:
        return _command_parser().parse_args(argv)
    except SystemExit:  # the fields were checked above, so this is a mismatch between them and the command's flags
        raise FanscanError(f"the request does not make a valid `fanscan {command}` command") from None


# The longest hand string is well under 100 characters (four kongs with claims, the context and eight flowers): a
# longer one is refused by its length, before the parser spends time on it.
MAX_HAND_CHARS = 256


class ScoreRequest(WinContextFields):
    hand: str = Field(description="GB-notation hand string, as `fanscan score HAND`", max_length=MAX_HAND_CHARS,
                      examples=["[EEE,2][SSSS,1]WWWNN55pN|EE1000"])
    rules: Rules | None = Field(None, description="rule set (default: the server's --rules)")


class ReviseRequest(BaseModel):
    """A proposal (as `POST /api/photo` returned it, or as this endpoint last returned it) and the user's fixes."""

    model_config = ConfigDict(extra="forbid")

    proposal: dict[str, Any]
    fixes: dict[int, str] = Field(default_factory=dict,
                                  description="tile number -> what it is: a tile id, `back`, or `none` (not a tile)",
                                  examples=[{"5": "7p", "9": "none"}])
    winning: int | None = Field(None, description="number of the tile that completed the hand")


class TableRequest(BaseModel):
    rows: list[dict[str, Any]] = Field(description="rows as `POST /api/batch/row` returned them")
    format: Literal["csv", "jsonl"] = "csv"
