"""Choosing the winning tile on a proposal: the page's "tap the tile that completed the hand"."""

from __future__ import annotations

from dataclasses import replace

from fanscan.confirm import with_winning_tile
from fanscan.scoring import parse_hand
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.notation import format_hand
from fanscan.vision.proposal import STANDING, WINNING, HandProposal


def with_winning_number(proposal: HandProposal, number: int) -> HandProposal:
    """The proposal with tile `number` as the winning tile (as `--winning-tile` / the terminal's question does it):
    its hand string ends with that tile, and the tiles' roles say so."""
    if not 1 <= number <= len(proposal.tiles):
        raise FanscanError(f"there is no tile {number}: tiles are numbered 1-{len(proposal.tiles)}")
    chosen = proposal.tiles[number - 1]
    if proposal.status != "complete":
        raise FanscanError("the tiles do not read as a complete hand yet: fix them first, then choose the winning "
                           "tile")
    if chosen.role not in (STANDING, WINNING):
        raise FanscanError(f"tile {number} ({chosen.tile}) is a {chosen.role} tile: the winning tile is one of the "
                           "standing tiles")
    hand = with_winning_tile(parse_hand(proposal.hand), chosen.tile)
    tiles = [replace(t, role=WINNING if t.number == number else STANDING if t.role == WINNING else t.role)
             for t in proposal.tiles]
    return replace(proposal, tiles=tiles, hand=format_hand(hand))
