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
from protocol.review import PlayerReview, Reason, Review, ReviewedMove, ReviewMove

#: The mark of a move that cost 10 or more.
MARK = "??"


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat's name made visible (a rated bot as its level: "hard bot"), or `seat N` when it
    has none."""
    name = names[seat] if 0 <= seat < len(names) else ""
    if name in words.BOT_PLAYER_WORDS:
        return _(words.BOT_PLAYER_WORDS[name])
    return visible(name) or _("seat {seat}").format(seat=seat)


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
    text.append(f" {best:<15} " + _("lost {points}").format(points=f"{line.lost:5.1f}"))
    text.append(f" {MARK}" if line.costly else "   ", style="bold red")
    said = reasons_words(line, names)
    if said:
        text.append(f"  {said}", style="dim")
    return text


def summary_text(player: PlayerReview, names: Sequence[str]) -> list[Text]:
    """A player's points lost per hand and costliest moves."""
    who = _("{who} (seat {seat}):").format(who=seat_name(names, player.seat), seat=player.seat)
    head = Text(f"  {who} ")
    lost = f"{player.lost_per_hand:.1f}"
    head.append(_("{points} points lost per hand").format(points=lost), style="bold")
    hands = ngettext("{count} hand", "{count} hands", player.hands).format(count=player.hands)
    decisions = ngettext("{count} decision", "{count} decisions", player.decisions).format(
        count=player.decisions
    )
    costly = ngettext(
        "{count} move cost 10 or more", "{count} moves cost 10 or more", player.costly
    ).format(count=player.costly)
    said = _("({points} over {hands}, {decisions}); {costly}")
    head.append(
        " "
        + said.format(points=f"{player.lost:.1f}", hands=hands, decisions=decisions, costly=costly)
    )
    rows: list[Text] = [head]
    if player.costliest:
        rows.append(Text("    " + _("costliest moves:")))
        rows += [move_text(line, names, indent="      ") for line in player.costliest]
    return rows


def review_text(review: Review, names: Sequence[str], heading: str) -> list[Text | str]:
    """The review as lines: a heading, every decision per player, then the summary."""
    rows: list[Text | str] = [Text(heading)]
    for player in review.players:
        who = _("{who} (seat {seat})").format(who=seat_name(names, player.seat), seat=player.seat)
        rows += ["", Text(who, style="bold")]
        mine = [line for line in review.moves if line.seat == player.seat]
        if not mine:
            rows.append(Text("  " + _("no move with a choice"), style="dim"))
        rows += [move_text(line, names) for line in mine]
    rows += ["", Text(_("Summary"), style="bold")]
    for player in review.players:
        rows += summary_text(player, names)
    return rows
