"""The rows just above the prompt and the panels that take the log's place: pure, like `render`.

The notice (the latest error, hint or connection note) and the status line (whose turn, what to
type, the turn clock, the end question with what each end would make); the hand's result until
the player presses Enter, and `/ends` (what each playable tile would make at each end).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from clients.cli import words
from clients.cli.commands import Ask
from clients.cli.i18n import N_, _, ngettext
from clients.cli.scoreboard import explain_hand, side_names
from clients.cli.state import Notice, TableState, display_names
from clients.cli.styles import DULL, NOTICE_STYLES, rule, wrap
from protocol.ratings import RatingChange
from protocol.views import GameView, MoveSpec, RoomView

#: The server's default wait before a bot plays an away player's turn (no turn clock).
AWAY_SECONDS = 60
#: Columns kept free after the status line's reminder for the turn clock (" · 30 s left").
CLOCK_ROOM = 12
#: A notice longer than this many rows is cut (the table keeps its place).
NOTICE_ROWS = 3
#: The idle bound (a connected player's turn without a turn clock) is counted down in its last
#: this many seconds.
IDLE_SHOWN = 60


def made(spec: MoveSpec) -> str:
    """What a legal play would make, as the server says: "10 ★" when it scores, "?" if unsaid."""
    if spec.total is None:
        return "?"
    return f"{spec.total}{' ★' if spec.points else ''}"


def legal_spec(game: GameView, tile: str, end: str | None) -> MoveSpec | None:
    """The entry of `legal` for `tile` at `end` (or the tile's only entry, which has no end)."""
    for spec in game.legal:
        if spec.tile == tile and spec.end in (end, None):
            return spec
    return None


def end_choices(game: GameView, tile: str, ends: Sequence[str], short: bool = False) -> str:
    """What each end would make: "west (w) → 10 ★, east (e) → 7" ("w → 10 ★, e → 7" if short)."""
    shown = []
    for end in ends:
        spec = legal_spec(game, tile, end)
        where = end[0] if short else f"{words.end_word(end)} ({end[0]})"
        shown.append(f"{where} → {'?' if spec is None else made(spec)}")
    return ", ".join(shown)


def only_end(game: GameView, tile: str) -> str | None:
    """The end a tile played with no end named goes to (None for a lead): the one it shows at."""
    if not game.layout.line:
        return None
    pips = {int(pip) for pip in tile.split("-")}
    ends = game.ends
    matching = [
        name
        for name, number in (
            ("east", ends.east),
            ("west", ends.west),
            ("north", ends.north),
            ("south", ends.south),
        )
        if number is not None and number in pips
    ]
    return matching[0] if matching else None


def ends_rows(state: TableState, width: int = 80) -> list[str]:
    """Every playable tile with what to type for each end and the total it would make (/ends),
    side by side in columns as far as `width` allows, so that none is left out of sight."""
    game = state.game
    if game is None or not state.my_turn():
        return [_("What each tile would score shows on your turn.")]
    by_tile: dict[str, list[MoveSpec]] = {}
    for spec in game.legal:
        if spec.tile is not None:
            by_tile.setdefault(spec.tile, []).append(spec)
    numbers = state.numbers
    entries = []
    for tile, specs in sorted(by_tile.items(), key=lambda item: numbers.get(item[0], 0)):
        number = numbers.get(tile, "?")
        if len(specs) == 1 and specs[0].end is None:
            end = only_end(game, tile)
            letter = f" {end[0]}" if end is not None else ""
            choices = [f"{number}{letter} → {made(specs[0])}"]
        else:
            choices = [f"{number} {spec.end[0]} → {made(spec)}" for spec in specs if spec.end]
        entries.append(f"{tile}: {', '.join(choices)}")
    if not entries:
        return [_("No tile can be played: you draw or pass.")]
    rows = [_("Type the number (and the end's letter) to play:")]
    column = max(len(entry) for entry in entries) + 3
    per_row = max(1, (width - 1) // column)
    for start in range(0, len(entries), per_row):
        rows.append("".join(f"{entry:<{column}}" for entry in entries[start : start + per_row]))
    return [row.rstrip() for row in rows]


def result_rows(state: TableState, view: RoomView, width: int) -> list[Text]:
    """The last hand's result (and the match summary once it is over), until Enter is pressed."""
    names = display_names(view, state.played_names)
    rows: list[Text] = []
    if state.result is not None:
        number = state.result_hand if state.result_hand is not None else "?"
        rows.append(rule(width, _("hand {number} result · Enter to go on").format(number=number)))
        rows += [
            Text(" " + line, Style(bold=True))
            for line in explain_hand(state.result, names, view.rules)
        ]
    if state.match_over:
        rows.append(rule(width, _("the match · Enter to go on")))
        scores = view.game.scores if view.game is not None else None
        board = state.scoreboard.rows(names, view.rules, scores)
        rows += [Text(" " + line) for line in board]
        rating = rating_text(view)
        if rating is not None:
            rows.append(Text(" " + rating, Style(bold=True)))
            note = rating_note(view)
            if note is not None:
                rows.append(Text(" " + note))
    return wrap(rows, width)


#: The rating change per ladder, as the end of a match says it.
RATING_WORDS = {
    "2p": N_("Your rating on the two-player ladder: {rating} ({change})"),
    "3p": N_("Your rating on the three-player ladder: {rating} ({change})"),
    "teams": N_("Your rating on the partnership ladder: {rating} ({change})"),
}


def rating_note(view: RoomView) -> str | None:
    """Why your rating moved less than openskill's full change (the change's `counted`): a
    provisional player at the table, or a short match or a repeat; None when it counted fully."""
    if view.ratings is None or view.you is None:
        return None
    mine = next((change for change in view.ratings if change.seat == view.you), None)
    if mine is None or mine.counted >= 1:
        return None
    if mine.counted <= 0:
        return None  # rating_text says it all in one sentence
    share = max(1, round(mine.counted * 100))
    return _(
        "This match counted {share}/100 of a full one: matches shorter than 150 points and "
        "repeats against the same player within a day count less."
    ).format(share=share)


def provisional_text(mine: RatingChange) -> str:
    """The end of a match that moved no rating (docs/ratings.md, "Provisional players"): when
    the player is provisional, what counts and what it still lacks (the change's
    `matches_to_go` and `opponents_to_go`); else that another player at the table was."""
    parts = []
    if mine.provisional and mine.matches_to_go > 0:
        count = mine.matches_to_go
        parts.append(ngettext("{count} more match", "{count} more matches", count))
        parts[-1] = parts[-1].format(count=count)
    if mine.provisional and mine.opponents_to_go > 0:
        count = mine.opponents_to_go
        parts.append(ngettext("{count} more opponent", "{count} more opponents", count))
        parts[-1] = parts[-1].format(count=count)
    if parts:
        left = parts[0]
        if len(parts) == 2:
            left = _("{matches} and {opponents}").format(matches=parts[0], opponents=parts[1])
        return _(
            "No rating moved: your rating is provisional until you have played 5 whole matches "
            "(to 150 points; shorter ones count in part) against 3 different opponents. Still to "
            "go: {left}."
        ).format(left=left)
    return _(
        "No rating moved: a provisional player sat at the table. Ratings move once each player "
        "has played 5 whole matches (to 150 points; shorter ones count in part) against 3 "
        "different opponents, and this match counts towards that."
    )


def rating_text(view: RoomView) -> str | None:
    """Your rating change once the finished match is rated ("Your rating on the two-player
    ladder: 27.4 (+3.1)"); None when there is none for your seat (yet)."""
    if view.ratings is None or view.you is None:
        return None
    mine = next((change for change in view.ratings if change.seat == view.you), None)
    if mine is None:
        return None
    if mine.counted <= 0:  # no figure: "0.0 (0.0)" read as "my rating is zero"
        return provisional_text(mine)
    after, delta = mine.after.rating, mine.after.rating - mine.before.rating
    sign = "+" if delta >= 0 else "−"
    change = f"{sign}{words.decimal(abs(delta))}"
    if mine.ladder in RATING_WORDS:
        return _(RATING_WORDS[mine.ladder]).format(rating=words.decimal(after), change=change)
    said = _("Your rating on the {ladder} ladder: {rating} ({change})")
    return said.format(ladder=mine.ladder, rating=words.decimal(after), change=change)


def notice_row(notice: Notice | None, width: int, most: int = NOTICE_ROWS) -> list[Text]:
    """The latest notice (an error in words, a hint, a connection note), if any, on at most
    `most` rows (`NOTICE_ROWS` at the most; its end cut with "…")."""
    if notice is None or most < 1:
        return []
    mark = {"error": "✗ ", "hint": "", "info": ""}[notice.kind]
    text = Text(f" {mark}{notice.text}", NOTICE_STYLES[notice.kind])
    rows = wrap([text], width)
    most = min(most, NOTICE_ROWS)
    if len(rows) > most:
        rows = rows[:most]
        rows[-1].truncate(width, overflow="ellipsis")
    return rows


def status(view: RoomView, state: TableState, pending: Ask | None, width: int = 200) -> Text:
    """One line saying what happens now and what to type (its reminder left out where it
    would not fit in `width`)."""
    names = display_names(view, state.played_names)
    game = view.game
    if not state.online:
        return Text(
            " " + _("Not connected: the table is as it was when the connection dropped"), DULL
        )
    if pending is not None:
        if game is not None and state.my_turn():
            choices = end_choices(game, pending.tile, pending.ends, short=True)
            said = _("{tile} on {choices}: which end?").format(tile=pending.tile, choices=choices)
            return Text(" " + said, Style(bold=True))
        return Text(" " + pending.question, Style(bold=True))
    if view.phase == "waiting":
        return _waiting_status(view)
    if game is None:
        return Text(" ")
    if view.phase == "finished" or game.over:
        teams = view.rules.partnership
        verdict = words.describe_winner(game.winner, names, teams)
        sides = side_names(names, view.rules)
        scores = ", ".join(
            f"{side} {score}" for side, score in zip(sides, game.scores, strict=False)
        )
        after = " " + (
            _("/rematch, /save FILE or /quit")
            if view.you == view.host and state.everyone_stayed()
            else _("/save FILE or /quit")
        )
        said = f" {verdict}: {scores}."
        you = view.you
        my_side = view.sides[you] if you is not None and you < len(view.sides) else you
        yours = words.verdict_for(game.winner, teams, my_side)
        if yours:
            said += f" {yours}"
        if len(said) + len(after) > width:
            after = ""  # the verdict whole rather than the reminder folded and cut under it
        return Text.assemble((said, Style(bold=True, color="green")), (after, DULL))
    mine = view.seats[view.you] if view.you is not None else None
    if mine is not None and mine.stand_in and mine.connected:
        said = _("A stand-in plays for you: /back to play again")
        return Text(" " + said, Style(bold=True, color="yellow"))
    if state.result is not None and not state.my_turn():
        said = _("Press Enter to go on (hand {number}'s result is above)")
        return Text(" " + said.format(number=state.result_hand), DULL)
    left = seconds_left(state, view)
    idle = idle_left(view)
    if idle is not None and idle > IDLE_SHOWN:
        idle = None
    if state.my_turn():
        clock = None
        if left is not None and view.rules.turn_seconds is not None:
            clock = (_("{seconds} s left").format(seconds=left), left)
        elif idle is not None:
            clock = (_("{seconds} s, then a stand-in").format(seconds=idle), idle)
        room = CLOCK_ROOM if clock is None else max(CLOCK_ROOM, len(clock[0]) + 3)
        line = _your_turn(game, state, width, room)
        if clock is not None:
            said, seconds = clock
            line.append(" · " + said, Style(bold=True, color="red" if seconds <= 10 else None))
        return line
    if game.turn is None:
        return Text(" ")
    seat = view.seats[game.turn]
    who = names[game.turn]
    if seat is not None and seat.stand_in and seat.connected:
        said = _("{who} was idle: a stand-in plays for them")
        return Text(" " + said.format(who=who), DULL)
    if idle is not None:
        said = _("{who} to play… (idle: a stand-in in {seconds} s)")
        return Text(" " + said.format(who=who, seconds=idle), DULL)
    if seat is not None and not seat.connected:
        if left is not None and left > 0:
            said = _("{who} is away: a bot plays for them in {seconds} s unless they come back")
        else:
            said = _("{who} is away: a bot plays for them now unless they come back")
        return Text(" " + said.format(who=who, seconds=left), DULL)
    if left is not None and view.rules.turn_seconds:
        said = _("{who} to play… ({seconds} s left)")
    else:
        said = _("{who} to play…")
    return Text(" " + said.format(who=who, seconds=left), DULL)


def seconds_left(state: TableState, view: RoomView) -> int | None:
    """Seconds before the turn's clock runs out (or an away player's stand-in plays), if any.

    Counted from when this client saw the turn begin, so it may run a little late."""
    rules = view.rules
    game = view.game
    if state.turn_since is None or game is None or game.turn is None:
        return None
    seat = view.seats[game.turn]
    away = seat is not None and seat.kind == "human" and not seat.connected
    limit = rules.turn_seconds or (AWAY_SECONDS if away else None)
    if limit is None:
        return None
    return max(0, math.ceil(limit - (time.monotonic() - state.turn_since)))


def idle_left(view: RoomView) -> int | None:
    """Seconds before a stand-in takes the seat of a connected player who does not move on
    their turn (a room without a turn clock): the turn's `deadline`, by this machine's clock."""
    game = view.game
    if game is None or game.turn is None or view.rules.turn_seconds is not None:
        return None
    seat = view.seats[game.turn]
    if seat is None or seat.kind != "human" or not seat.connected or seat.stand_in:
        return None
    if view.deadline is None:
        return None
    return max(0, math.ceil(view.deadline - time.time()))


def _your_turn(game: GameView, state: TableState, width: int, room: int = CLOCK_ROOM) -> Text:
    numbered = state.numbered_hand()
    playable = [
        str(number) for number, tile in numbered if any(spec.tile == tile for spec in game.legal)
    ]
    yours = (" " + _("Your turn"), Style(bold=True, color="green"))
    if not game.layout.line:
        what = _("lead any tile")
    elif not playable:
        return Text.assemble(yours, ": " + _("no tile fits, pass"))
    else:
        what = _("play {tiles}").format(tiles=words.either(playable))
    line = Text.assemble(yours, f": {what}")
    reminder = " " + _("(its number, or the tile: 5-3)")
    if line.cell_len + len(reminder) <= width - room:
        line.append(reminder, DULL)
    return line


def _waiting_status(view: RoomView) -> Text:
    free = sum(1 for seat in view.seats if seat is None)
    if view.you is not None and view.you == view.host:
        if free:
            seats = ngettext("{count} free seat", "{count} free seats", free).format(count=free)
            return Text.assemble(
                (f" {seats}", Style(bold=True)),
                ": " + _("wait for friends, or /bots fill to seat bots; then /start"),
            )
        return Text.assemble(
            (" " + _("Every seat is taken"), Style(bold=True)),
            ": " + _("/start deals the first hand"),
        )
    return Text(" " + _("Waiting for the host to start the match"), DULL)
