"""The hard bot's review (`protocol.review`) in words, for the terminal and `allfives analyze`.

The review carries codes and numbers; the words are the catalog's (`clients.cli.i18n`), the same
sentences as the page's (clients/web/js/review_words.js). Names come from the record
(untrusted) and are made visible (`clients.cli.safe.visible`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from clients.cli import words
from clients.cli.i18n import _, ngettext
from clients.cli.safe import visible
from protocol.review import (
    Grade,
    HandReview,
    PlayerReview,
    Reason,
    Review,
    ReviewedMove,
    ReviewMove,
)

#: The mark of a move that cost 10 game points or more (a blunder).
MARK = "??"


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat's name made visible (a bot as the table named its seat, with its level:
    "Bot 2 (hard)"), or `seat N` when it has none."""
    name = names[seat] if 0 <= seat < len(names) else ""
    level = words.bot_level(name)
    if level is not None:
        return words.bot_seat_name(seat, level)
    return visible(name) or words.seat_word(seat)


def seat_heading(names: Sequence[str], seat: int) -> str:
    """A player's heading in the review: "Ann (seat 1)", a bot's seat as it is named ("Bot 2
    (hard)", its number already in it)."""
    if words.bot_level(names[seat] if 0 <= seat < len(names) else "") is not None:
        return seat_name(names, seat)
    return _("{who} (seat {seat})").format(who=seat_name(names, seat), seat=words.seat_number(seat))


def move_words(move: ReviewMove | None) -> str:
    """A move as the table writes it: `6-6 west`, `5-3`, `pass`."""
    if move is None or move.pass_ or move.tile is None:
        return _("pass")
    return move.tile if move.end is None else f"{move.tile} {words.end_word(move.end)}"


def reason_words(reason: Reason, names: Sequence[str]) -> str:
    """One reason in words ("passed up 15 points with 6-6 west")."""
    if reason.kind == "passed_up":
        said = ngettext(
            "passed up {count} point with {move}",
            "passed up {count} points with {move}",
            reason.points,
        )
        return said.format(count=reason.points, move=move_words(reason.move))
    if reason.kind == "opened":
        whom = seat_name(names, reason.seat if reason.seat is not None else -1)
        reply = f"{whom} ({move_words(reason.move)})"
        if reason.scored > 0:
            said = _("scored {scored} now but opened {points} for {whom}")
            return said.format(scored=reason.scored, points=reason.points, whom=reply)
        return _("opened {points} for {whom}").format(points=reason.points, whom=reply)
    tile = reason.tile or "?"
    if tile[0] == tile[-1]:
        what = _("a heavy double")
    else:
        what = ngettext("{count} pip", "{count} pips", reason.points).format(count=reason.points)
    if reason.counted:
        said = _("kept {tile} ({what}), counted against you when the hand ended")
    else:
        said = _("kept {tile} ({what}) instead of shedding it")
    return said.format(tile=tile, what=what)


def reasons_words(line: ReviewedMove, names: Sequence[str]) -> str | None:
    """Every reason of a move, joined; None when only the search says why."""
    return "; ".join(reason_words(r, names) for r in line.reasons) or None


def grade_words(grade: Grade | None) -> str | None:
    """A move's grade in words ("a mistake"); None for the best move or a good one."""
    if grade == "inaccuracy":
        return _("an inaccuracy")
    if grade == "mistake":
        return _("a mistake")
    if grade == "blunder":
        return _("a blunder")
    return None


def line_words(line: ReviewedMove, names: Sequence[str]) -> str:
    """A reviewed move in a sentence, as the page words it: "6-6 west: the best move", or
    "5-0 lost 12.5 points against 1-1 (a blunder): opened 10 for Bob (5-5 west)"."""
    if not line.lost > 0 and line.grade in (None, "best"):
        return _("{move}: the best move").format(move=move_words(line.played))
    said = _("{move} lost {points} points against {best}").format(
        move=move_words(line.played), points=words.decimal(line.lost), best=move_words(line.best)
    )
    grade = grade_words(line.grade)
    if grade:
        said += f" ({grade})"
    why = reasons_words(line, names)
    return f"{said}: {why}" if why else said


def grades_words(player: PlayerReview) -> str:
    """A player's moves graded: "1 inaccuracy, 2 mistakes, 0 blunders"."""
    counts = (
        ngettext("{count} inaccuracy", "{count} inaccuracies", player.inaccuracies),
        ngettext("{count} mistake", "{count} mistakes", player.mistakes),
        ngettext("{count} blunder", "{count} blunders", player.blunders),
    )
    numbers = (player.inaccuracies, player.mistakes, player.blunders)
    return ", ".join(said.format(count=n) for said, n in zip(counts, numbers, strict=True))


def total_words(player: PlayerReview) -> str:
    """A player's review in a sentence, as the page words it: accuracy, the points lost a move,
    the grades ("accuracy 87.5%, 1.9 points lost a move, 16 decisions; 1 inaccuracy, ...")."""
    if player.decisions == 0:
        return _("no move with a choice")
    if player.accuracy is None:
        return _("a review from an older server, counted in other points: not shown")
    decisions = ngettext("{count} decision", "{count} decisions", player.decisions).format(
        count=player.decisions
    )
    said = _("accuracy {accuracy}%, {points} points lost a move, {decisions}; {grades}")
    return said.format(
        accuracy=words.decimal(player.accuracy),
        points=words.decimal(player.lost_per_move),
        decisions=decisions,
        grades=grades_words(player),
    )


def hand_words(hand: HandReview) -> str:
    """One hand of a player's in a sentence ("hand 2: accuracy 91.3%, 0.9 points lost a move")."""
    if hand.decisions == 0 or hand.accuracy is None:
        return _("hand {hand}: no move with a choice").format(hand=hand.hand)
    said = _("hand {hand}: accuracy {accuracy}%, {points} points lost a move")
    return said.format(
        hand=hand.hand,
        accuracy=words.decimal(hand.accuracy),
        points=words.decimal(hand.lost_per_move),
    )


def names_of(review: Review, players: int) -> list[str]:
    """The names by seat the review knows (a seat it did not review has none)."""
    names = [""] * players
    for player in review.players:
        if 0 <= player.seat < players:
            names[player.seat] = player.name
    return names


def move_text(line: ReviewedMove, names: Sequence[str], indent: str = "  ") -> Text:
    """One decision on one line: where, what was played, what was best and what it cost."""
    where = _("hand {hand} move {move}").format(hand=f"{line.hand:>2}", move=f"{line.move:>2}")
    played = _("played {move}").format(move=move_words(line.played))
    text = Text(f"{indent}{where}  {played:<17}")
    if line.lost == 0:
        return text.append(" " + _("best move"), style="green")
    best = _("best {move}").format(move=move_words(line.best))
    text.append(
        f" {best:<15} " + _("lost {points}").format(points=words.decimal(line.lost).rjust(5))
    )
    text.append(f" {MARK}" if line.costly else "   ", style="bold red")
    said = reasons_words(line, names)
    if said:
        text.append(f"  {said}", style="dim")
    return text


def summary_text(player: PlayerReview, names: Sequence[str]) -> list[Text]:
    """A player's accuracy and points lost a move, each hand's, and the costliest moves (the
    page's sentences: `total_words`, `hand_words`, `line_words`)."""
    head = Text(f"  {seat_heading(names, player.seat)}: ")
    head.append(total_words(player), style="bold")
    rows: list[Text] = [head]
    if player.accuracy is None:
        return rows
    rows += [Text("    " + hand_words(hand)) for hand in player.by_hand]
    if player.costliest:
        rows.append(Text("    " + _("costliest moves:")))
        for line in player.costliest:
            where = _("hand {hand} move {move}").format(hand=line.hand, move=line.move)
            style = "bold red" if line.costly else ""
            rows.append(
                Text(f"      {where}: ", style="dim").append(line_words(line, names), style)
            )
    return rows


def review_text(review: Review, names: Sequence[str], heading: str) -> list[Text | str]:
    """The review as lines: a heading, every decision per player, then the summary."""
    rows: list[Text | str] = [Text(heading)]
    for player in review.players:
        rows += ["", Text(seat_heading(names, player.seat), style="bold")]
        mine = [line for line in review.moves if line.seat == player.seat]
        if not mine:
            rows.append(Text("  " + _("no move with a choice"), style="dim"))
        rows += [move_text(line, names) for line in mine]
    rows += ["", Text(_("Summary"), style="bold")]
    for player in review.players:
        rows += summary_text(player, names)
    return rows
