"""The confirm step in a terminal: show a `HandProposal`, let the user accept or correct it, ask the win context.

Everything reads answers through a `Prompter`, which turns the end of input (Ctrl-D, a closed pipe) into one clean
`FanscanError` instead of a traceback, and shows each question's default in brackets (Enter takes it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TextIO

from fanscan.scoring import Hand, WinContext, parse_hand, waits
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.hand import check_context, check_context_fields
from fanscan.scoring.tiles import INDEX, N_KINDS
from fanscan.vision.group import LOW_CONFIDENCE
from fanscan.vision.proposal import DROPPED, TABLE, TOO_FEW_TILES, UNUSED, WINNING, HandProposal, revise

# Runner-up readings less likely than this (relative to the proposal) are not worth the user's attention.
SHOW_ALTERNATIVES_ABOVE = 0.02
_YES = {"y", "yes", "ok", "accept"}
_NO = {"n", "no"}
_QUIT = {"q", "quit", "exit"}
# The width the proposal's lines are laid out for: a terminal's default.
TERMINAL_COLUMNS = 80


def _stdin_line() -> str:
    return sys.stdin.readline()


@dataclass
class Prompter:
    """Asks questions on `out` and reads one line per answer with `read` ('' means the input ended)."""

    read: Callable[[], str] = _stdin_line
    out: TextIO = field(default_factory=lambda: sys.stdout)

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def ask(self, question: str, default: str = "") -> str:
        self.out.write(f"{question} [{default}]: " if default else f"{question}: ")
        self.out.flush()
        line = self.read()
        if line == "":
            self.say()
            raise FanscanError("no answer (end of input): nothing was scored")
        return line.strip() or default

    def ask_yes_no(self, question: str, default: bool) -> bool:
        while True:
            answer = self.ask(f"{question} (y/n)", "y" if default else "n").lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            self.say("  please answer y or n")


# ---- showing a proposal -------------------------------------------------------------------------------------------


def describe_proposal(proposal: HandProposal, low_confidence: float = LOW_CONFIDENCE) -> list[str]:
    """The proposal as lines of text: numbered tiles (uncertain ones marked `?`), melds, hand, warnings."""
    name = proposal.image or "photo"
    total_ms = proposal.timings_ms.get("total")
    lines = [f"{name}: {len(proposal.tiles)} tiles found" + (f" in {total_ms:.0f} ms" if total_ms else "")]
    if not proposal.tiles:
        return lines
    cells = []
    for tile in proposal.tiles:
        mark = "?" if tile.confidence < low_confidence and tile.role not in (DROPPED, UNUSED, TABLE) else ""
        role = {WINNING: "*", DROPPED: "(not a tile)", UNUSED: "(unused)", TABLE: "(table)"}.get(tile.role, "")
        cells.append(f"{tile.number:>2}:{tile.tile}{mark}{role}")
    lines.extend(tile_rows(cells))
    for meld in proposal.melds:
        numbers = ",".join(str(n) for n in meld.tile_numbers)
        how = "concealed kong" if meld.concealed else f"claimed {meld.kind}"
        lines.append(f"  meld: {''.join(meld.tiles)} ({how}, tiles {numbers})")
    if proposal.flowers:
        lines.append(f"  flowers: {' '.join(proposal.flowers)}")
    status = {
        "complete": "a complete hand", "ready": "13 tiles: a ready hand, no winning tile",
        "incomplete": "not a complete hand", "invalid": "not a valid hand",
    }.get(proposal.status, proposal.status)
    winning = "" if proposal.status != "complete" else (
        "; winning tile set apart in the photo" if proposal.winning_tile_set_apart
        else "; winning tile assumed to be the last one (*)")
    lines.append(f"Proposed hand: {proposal.hand.strip()}   ({status}{winning})")
    short = hand_one_tile_short(proposal)
    if short is not None:
        found = waits(short)
        lines.append(f"  waits on {' '.join(found)}: if every tile is read right, add the winning tile with 'add TILE'"
                     f" (or 'fix {len(proposal.tiles) + 1} TILE')" if found else
                     "  no tile completes the tiles as read: one may be misread ('fix N TILE')")
    for alternative in [a for a in proposal.alternatives if a.relative_probability >= SHOW_ALTERNATIVES_ABOVE][:3]:
        changes = ", ".join(f"tile {n} {b}" for n, _, b in alternative.changes)
        ratio = alternative.relative_probability
        likely = f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.2g}"
        lines.append(f"  or: {alternative.hand.strip()}  ({changes}; {likely}x as likely, {alternative.status})")
    lines.extend(f"  ! {w}" for w in proposal.warnings)
    return lines


def tile_rows(cells: list[str], columns: int = TERMINAL_COLUMNS) -> list[str]:
    """The numbered tile cells in rows that fit `columns`, as even as they can be (14 tiles: two rows of 7, not
    10 + 4), each row indented by two spaces."""
    if not cells:
        return []
    cell = max(len(c) for c in cells)
    per_row = max(1, (columns - 2 + 2) // (cell + 2))  # two-space indent; two spaces between cells
    n_rows = -(-len(cells) // per_row)
    per_row = -(-len(cells) // n_rows)
    return ["  " + "  ".join(f"{c:<{cell}}" for c in cells[start:start + per_row]).rstrip()
            for start in range(0, len(cells), per_row)]


def hand_one_tile_short(proposal: HandProposal) -> Hand | None:
    """The proposal's hand when it is one tile short of a finished hand (13 tiles plus one per kong, as a photo with
    the winning tile hidden or not yet drawn shows): the hand to list the waits of and add a tile to; else None."""
    if proposal.problem != TOO_FEW_TILES or not proposal.hand.strip():
        return None
    try:
        hand = parse_hand(proposal.hand)
        waits(hand)  # a waiting hand: 13 tiles plus one per kong, no winning tile
    except FanscanError:
        return None
    return hand


def with_added_tile(proposal: HandProposal, tile: str) -> Hand:
    """The hand of a proposal one tile short (`hand_one_tile_short`) with `tile` as its winning tile: the tile the
    photo does not show. It must be a tile id that completes the hand."""
    short = hand_one_tile_short(proposal)
    if short is None:
        raise FanscanError(f"'add TILE' is for a photo one tile short of a hand; this one shows "
                           f"{len(proposal.tiles)} tiles: use 'fix N TILE' or type the hand")
    if tile not in INDEX or INDEX[tile] >= N_KINDS:
        raise FanscanError(f"{tile!r} is not a tile id (e.g. 5m, 7p, 1s, E, C)")
    found = waits(short)
    if tile not in found:
        raise FanscanError(f"{tile} does not complete {proposal.hand.strip()} (it waits on "
                           f"{' '.join(found) or 'no tile'}): fix a misread tile with 'fix N TILE' first")
    return replace(short, winning_tile=tile)


# ---- accept or correct ----------------------------------------------------------------------------------------------


def parse_fixes(text: str, n_tiles: int, can_add: bool = False) -> dict[int, str]:
    """'fix 5 7p' or 'fix 5 7p 9 none' (also with commas) -> {5: '7p', 9: 'none'}. With `can_add` (a photo one
    tile short), number n_tiles + 1 is the missing tile."""
    words = text.replace(",", " ").split()[1:]
    if not words or len(words) % 2:
        raise FanscanError("write 'fix N TILE', e.g. 'fix 5 7p' (TILE may be 'none' for not a tile, 'table' to set "
                           "a tile aside, 'hand' to take a set-aside tile back)")
    fixes = {}
    for number, tile in zip(words[0::2], words[1::2], strict=True):
        last = n_tiles + 1 if can_add else n_tiles
        if not number.isdigit() or not 1 <= int(number) <= last:
            raise FanscanError(f"'{number}' is not a tile number (1-{last})")
        fixes[int(number)] = tile
    return fixes


@dataclass
class Confirmed:
    """What the user confirmed: the hand (with the context written in a typed hand string, if any), the proposal as
    last revised, and whether the hand was typed (its tiles then need not be the photo's)."""

    hand: Hand
    proposal: HandProposal
    typed: bool = False


_ASK_ACCEPT = "Accept? Enter = yes; or type the right hand string, or 'fix N TILE'; q = quit"
_ASK_ADD = "Add the winning tile: 'add TILE'; or 'fix N TILE', or type the hand string; q = quit"


def confirm_hand(proposal: HandProposal, prompter: Prompter) -> Confirmed:
    """Show the proposal until the user accepts it (adding the missing tile of a photo one tile short) or types a
    hand."""
    while True:
        for line in describe_proposal(proposal):
            prompter.say(line)
        short = hand_one_tile_short(proposal)
        answer = prompter.ask(_ASK_ADD if short is not None else _ASK_ACCEPT, "" if short is not None else "yes")
        words = answer.replace(",", " ").split()
        word = words[0].lower() if words else ""
        if word in _QUIT:
            raise FanscanError("cancelled: nothing was scored")
        try:
            if answer.lower() in _YES or not words:
                if short is not None:
                    found = " ".join(waits(short))
                    prompter.say(f"  {len(proposal.tiles)} tiles, one short of a finished hand: if they are read "
                                 f"right, say which tile won ('add TILE'; it waits on {found or 'no tile'}); else "
                                 "fix a tile with 'fix N TILE' or type the hand.")
                elif proposal.status != "complete":
                    prompter.say("  This is not a complete hand yet: correct it with 'fix N TILE' or type the hand.")
                else:
                    return Confirmed(parse_hand(proposal.hand), proposal)
                continue
            if word == "add":
                if len(words) != 2:
                    raise FanscanError("write 'add TILE', e.g. 'add 6p': the tile the photo does not show")
                return Confirmed(with_added_tile(proposal, words[1]), proposal)
            if word == "fix":
                fixes = parse_fixes(answer, len(proposal.tiles), can_add=short is not None)
                added = fixes.pop(len(proposal.tiles) + 1, None)
                if fixes:
                    proposal = revise(proposal, fixes)
                if added is not None:
                    return Confirmed(with_added_tile(proposal, added), proposal)
                continue
            return Confirmed(parse_hand(answer), proposal, typed=True)
        except FanscanError as error:
            prompter.say(f"  {error}")


# ---- win context ----------------------------------------------------------------------------------------------------

_SPECIAL_HELP = "l = last of its kind, t = last tile of the wall, k = kong replacement / robbing the kong"
# Items only the Hong Kong list scores (seed 000): asked under --rules hk, as the flags of the same names.
_HK_SPECIAL_HELP = "f = flower replacement, d = kong on kong, 1 = first tile (Heaven / Earth)"


def _special_help(rules: str) -> tuple[str, set[str]]:
    """The help line and the letters allowed for the 'anything else' question under a rule set."""
    if rules == "hk":
        return f"{_SPECIAL_HELP}, {_HK_SPECIAL_HELP}", {"l", "t", "k", "f", "d", "1"}
    return _SPECIAL_HELP, {"l", "t", "k"}


def _special_letters(ctx: WinContext, rules: str = "mcr") -> str:
    letters = ("l" if ctx.last_of_kind else "") + ("t" if ctx.last_tile else "")
    letters += "k" if (ctx.kong_replacement and not ctx.kong_on_kong) or ctx.robbing_kong else ""
    if rules == "hk":
        letters += ("f" if ctx.flower_replacement else "") + ("d" if ctx.kong_on_kong else "")
        letters += "1" if ctx.first_tile else ""
    return letters


def parse_flowers(text: str) -> tuple[tuple[str, ...], int | None]:
    """'ab' -> (('a', 'b'), None); '3' -> ((), 3); '-' or '' -> ((), None); anything else a FanscanError."""
    text = text.replace(" ", "").replace(",", "")
    if text.lower() in ("-", "none", ""):
        return (), None
    flowers, count = ((), int(text)) if text.isdigit() else (tuple(text), None)
    check_context_fields(WinContext(flowers=flowers, flower_count=count))  # says what is wrong with them
    return flowers, count


def _wind(prompter: Prompter, question: str, default: str) -> str:
    while True:
        answer = prompter.ask(f"{question} (E/S/W/N)", default).upper()
        if answer in ("E", "S", "W", "N"):
            return answer
        prompter.say("  one of E, S, W, N")


def with_winning_tile(hand: Hand, tile: str) -> Hand:
    """The same tiles with `tile` as the winning tile (it must be one of the standing tiles or the winning tile)."""
    if tile not in INDEX or INDEX[tile] >= N_KINDS:
        raise FanscanError(f"{tile!r} is not a tile id (e.g. 5m, 7p, 1s, E, C)")
    concealed = hand.concealed_tiles()
    if tile not in concealed:
        raise FanscanError(f"{tile} is not among the hand's standing tiles ({' '.join(concealed)})")
    concealed.remove(tile)
    return replace(hand, standing=tuple(concealed), winning_tile=tile)


def ask_context(hand: Hand, defaults: WinContext, prompter: Prompter, ask_winning_tile: bool = True,
                rules: str = "mcr", check: Callable[[Hand, WinContext], object] | None = None,
                ) -> tuple[Hand, WinContext]:
    """Ask what the photo cannot show; each default comes from `defaults` (flags and the photo's flowers).
    Under `rules` 'hk' the last question also offers the items only that list scores.

    The answers are checked together (`check`, default the tile-level context checks of `scoring`; the caller's
    may score the hand): an impossible combination (a kong replacement without a kong, say) asks the last question
    again, with '-' as its default, and keeps every earlier answer. Every impossible combination involves one of its
    letters; with none, the answers always hold."""
    if ask_winning_tile and hand.winning_tile is not None:
        while True:
            tile = prompter.ask("Winning tile (the tile that completed the hand)", hand.winning_tile)
            try:
                hand = with_winning_tile(hand, tile)
                break
            except FanscanError as error:
                prompter.say(f"  {error}")
    self_drawn = prompter.ask_yes_no("Self-drawn?", defaults.self_drawn)
    seat = _wind(prompter, "Seat wind", defaults.seat_wind)
    prevalent = _wind(prompter, "Prevalent (round) wind", defaults.prevalent_wind)
    default_flowers = "".join(defaults.flowers) or (str(defaults.flower_count) if defaults.flower_count else "-")
    while True:
        answer = prompter.ask("Flowers (letters a-h or a number; - for none)", default_flowers)
        try:  # only a wrong answer is asked again: the end of input (from `ask`) ends the questions
            flowers, flower_count = parse_flowers(answer)
            break
        except FanscanError as error:
            prompter.say(f"  {error}")
    base = WinContext(prevalent_wind=prevalent, seat_wind=seat, self_drawn=self_drawn, flowers=flowers,
                      flower_count=flower_count)
    default_letters = _special_letters(defaults, rules) or "-"
    while True:
        letters = _ask_special(prompter, rules, default_letters)
        context = _with_special(base, letters)
        try:
            (check or check_context)(hand, context)
            return hand, context
        except FanscanError as error:
            if not letters:  # nothing left to change here: the hand itself cannot be scored so
                raise
            prompter.say(f"  {error}: answer again (the other answers stand)")
            default_letters = "-"


def _ask_special(prompter: Prompter, rules: str, default: str) -> set[str]:
    """The letters of the 'anything else' question (asked until only allowed letters come back)."""
    help_line, allowed = _special_help(rules)
    while True:
        special = prompter.ask(f"Anything else? ({help_line}; - for none)", default)
        letters = set(special.lower().replace(",", "").replace(" ", "")) - {"-"}
        if letters <= allowed:
            return letters
        prompter.say(f"  letters {', '.join(sorted(allowed, key='ltkfd1'.index))} only ({help_line})")


def _with_special(base: WinContext, letters: set[str]) -> WinContext:
    """The context of the plain answers with the special letters' flags, read as the flags of the same names are: a
    replacement tile after a flower or a second kong is drawn, so the win is self-drawn."""
    self_drawn = base.self_drawn or bool(letters & {"f", "d"})
    return replace(
        base, self_drawn=self_drawn, last_of_kind="l" in letters, last_tile="t" in letters,
        kong_replacement=("k" in letters and self_drawn) or "d" in letters,
        robbing_kong="k" in letters and not self_drawn, flower_replacement="f" in letters,
        kong_on_kong="d" in letters, first_tile="1" in letters,
    )
