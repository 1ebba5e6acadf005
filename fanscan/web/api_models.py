"""The JSON bodies of the API. Field names are those of the `fanscan score` flags, so a request becomes the
argparse namespace the commands read (`as_args`) and goes down the commands' own code path."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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

    def as_args(self, rules: str, **more: Any) -> argparse.Namespace:
        """The namespace `fanscan score` / `photo` / `batch` would have parsed from the same flags."""
        if self.self_drawn and self.discard:
            from fanscan.scoring.errors import FanscanError

            raise FanscanError("self_drawn and discard exclude each other: give one")
        return argparse.Namespace(**self.model_dump(), rules=rules, **more)


class ScoreRequest(WinContextFields):
    hand: str = Field(description="GB-notation hand string, as `fanscan score HAND`",
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
