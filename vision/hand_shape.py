"""Is a proposed hand complete, ready, or neither? A thin view of scoring's `is_complete` and `waits` for the
reading search.

Called once per candidate reading of a photo, so it never raises: the answer is a status and, when the hand is not
complete, a short reason in words.
"""

from __future__ import annotations

from dataclasses import replace

from fanscan.scoring import is_complete, waits
from fanscan.scoring.hand import Hand, tile_counts
from fanscan.scoring.tiles import PLAYING_TILE_IDS

COMPLETE, READY, INCOMPLETE, INVALID = "complete", "ready", "incomplete", "invalid"


def status(hand: Hand) -> tuple[str, str]:
    """(status, reason): complete — a winning hand of 14 tiles (plus one per kong); ready — 13 tiles that some
    fifth-free tile completes; incomplete — anything else of legal tiles; invalid — five or more of a kind."""
    all_counts = tile_counts(hand.all_tiles())
    over = [PLAYING_TILE_IDS[i] for i, c in enumerate(all_counts) if c > 4]
    if over:
        return INVALID, f"more than four of {', '.join(over)}"
    concealed = hand.concealed_tiles()
    size = len(concealed) + 3 * len(hand.melds)
    if size == 14:
        if is_complete(concealed, len(hand.melds)):
            return COMPLETE, ""
        return INCOMPLETE, "no four sets and a pair (nor another winning shape) in these tiles"
    if size == 13:
        if waits(replace(hand, standing=tuple(concealed), winning_tile=None)):
            return READY, ""
        return INCOMPLETE, "13 tiles that no single tile completes"
    kongs = hand.n_kongs
    return INCOMPLETE, f"{size + kongs} tiles where a hand has 14" + (f" plus {kongs} for kongs" if kongs else "")
