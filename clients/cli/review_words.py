"""The hard bot's review (`protocol.review`) in words, for the terminal and `allfives analyze`.

The review carries codes and numbers; every English word a player reads of it is here. Names
come from the record (untrusted) and are made visible (`clients.cli.safe.visible`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from clients.cli.safe import visible
from protocol.review import PlayerReview, Reason, Review, ReviewedMove, ReviewMove

#: The mark of a move that cost 10 or more.
MARK = "??"


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat's name made visible, or `seat N` when it has none."""
    name = names[seat] if 0 <= seat < len(names) else ""
    return visible(name) or f"seat {seat}"


def move_words(move: ReviewMove | None) -> str:
    """A move as the table writes it: `6-6 west`, `5-3`, `pass`."""
    if move is None or move.pass_ or move.tile is None:
        return "pass"
    return move.tile if move.end is None else f"{move.tile} {move.end}"


def reason_words(reason: Reason, names: Sequence[str]) -> str:
    """One reason in words ("passed up 15 points with 6-6 west")."""
    if reason.kind == "passed_up":
        return f"passed up {reason.points} points with {move_words(reason.move)}"
    if reason.kind == "opened":
        whom = seat_name(names, reason.seat if reason.seat is not None else -1)
        reply = f"{whom} ({move_words(reason.move)})"
        if reason.scored > 0:
            return f"scored {reason.scored} now but opened {reason.points} for {reply}"
        return f"opened {reason.points} for {reply}"
    tile = reason.tile or "?"
    what = "a heavy double" if tile[0] == tile[-1] else f"{reason.points} pips"
    if reason.counted:
        return f"kept {tile} ({what}), counted against you when the hand ended"
    return f"kept {tile} ({what}) instead of shedding it"


def reasons_words(line: ReviewedMove, names: Sequence[str]) -> str | None:
    """Every reason of a move, joined; None when only the search says why."""
    return "; ".join(reason_words(r, names) for r in line.reasons) or None


def names_of(review: Review, players: int) -> list[str]:
    """The names by seat the review knows (a seat it did not review has none)."""
    names = [""] * players
    for player in review.players:
        if 0 <= player.seat < players:
            names[player.seat] = player.name
    return names


def move_text(line: ReviewedMove, names: Sequence[str], indent: str = "  ") -> Text:
    """One decision on one line: where, what was played, what was best and what it cost."""
    played = move_words(line.played)
    text = Text(f"{indent}hand {line.hand:>2} move {line.move:>2}  played {played:<10}")
    if line.lost == 0:
        return text.append(" best move", style="green")
    text.append(f" best {move_words(line.best):<10} lost {line.lost:5.1f}")
    text.append(f" {MARK}" if line.costly else "   ", style="bold red")
    said = reasons_words(line, names)
    if said:
        text.append(f"  {said}", style="dim")
    return text


def summary_text(player: PlayerReview, names: Sequence[str]) -> list[Text]:
    """A player's points lost per hand and costliest moves."""
    head = Text(f"  {seat_name(names, player.seat)} (seat {player.seat}): ")
    head.append(f"{player.lost_per_hand:.1f} points lost per hand", style="bold")
    head.append(
        f" ({player.lost:.1f} over {count(player.hands, 'hand')}, "
        f"{count(player.decisions, 'decision')}); "
        f"{count(player.costly, 'move')} cost 10 or more"
    )
    rows: list[Text] = [head]
    if player.costliest:
        rows.append(Text("    costliest moves:"))
        rows += [move_text(line, names, indent="      ") for line in player.costliest]
    return rows


def review_text(review: Review, names: Sequence[str], heading: str) -> list[Text | str]:
    """The review as lines: a heading, every decision per player, then the summary."""
    rows: list[Text | str] = [Text(heading)]
    for player in review.players:
        rows += ["", Text(f"{seat_name(names, player.seat)} (seat {player.seat})", style="bold")]
        mine = [line for line in review.moves if line.seat == player.seat]
        if not mine:
            rows.append(Text("  no move with a choice", style="dim"))
        rows += [move_text(line, names) for line in mine]
    rows += ["", Text("Summary", style="bold")]
    for player in review.players:
        rows += summary_text(player, names)
    return rows


def count(number: int, noun: str) -> str:
    """`1 hand`, `2 hands`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
