"""The table as rich Text rows for a terminal of a given size: pure, no terminal needed.

From top to bottom: a header (room, hand, target, boneyard, and the ends total in the right
corner, gold on a multiple of five), the players with scores and tile counts (▶ marks whose turn
it is), the layout, your hand numbered with the playable tiles highlighted, the log, the latest
notice and a status line saying what to do. Everything also reads without colour: playable
tiles are listed in the status line and a scoring total carries a ★.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from rich.console import Console
from rich.style import Style
from rich.text import Text

from clients.cli import layout as drawing
from clients.cli.commands import Ask
from clients.cli.placing import total_after
from clients.cli.scoreboard import explain_hand, side_names
from clients.cli.state import LogLine, Notice, TableState, display_names
from protocol.views import GameView, Layout, MatchEnded, Played, RoomView, describe

GOLD = Style(bold=True, color="yellow")
PLAYABLE = Style(bold=True, color="green")
HINTED = Style(bold=True, color="magenta", underline=True)
DULL = Style(dim=True)
RULE = Style(dim=True)
LOG_STYLES = {
    "play": Style(),
    "score": Style(color="yellow"),
    "hand": Style(bold=True),
    "match": Style(bold=True, color="green"),
    "chat": Style(color="cyan"),
    "info": Style(dim=True, italic=True),
    "error": Style(color="red"),
}
NOTICE_STYLES = {
    "info": Style(color="cyan"),
    "error": Style(bold=True, color="red"),
    "hint": Style(bold=True, color="magenta"),
}
TILE_WIDTH = 6
MIN_LOG_ROWS = 3
#: The server's default wait before a bot plays an away player's turn (no turn clock).
AWAY_SECONDS = 60
MIN_WIDTH = 30


def scoring(total: int) -> bool:
    """Whether an ends total scores: a multiple of five above zero (RULES.md 6.4)."""
    return total > 0 and total % 5 == 0


def total_text(game: GameView | None, short: bool = False) -> Text:
    """The ends total for the corner: gold and starred when it scores ("total" alone if short)."""
    label = "total " if short else "ends total "
    if game is None or not game.layout.line:
        return Text(f"{label}—", DULL)
    if scoring(game.total):
        return Text.assemble(label, (f"{game.total} ★", GOLD))
    return Text(f"{label}{game.total}")


def _joined(parts: Sequence[str]) -> Text:
    left = Text()
    for index, part in enumerate(parts):
        if index:
            left.append(" · ", DULL)
        left.append(part, Style(bold=True) if part == "All Fives" else Style())
    return left


def header(view: RoomView, width: int) -> Text:
    """Room, hand, target, boneyard; the ends total in the right corner, always whole.

    When the row is too narrow the left side gives way first: the title goes, then the words
    shorten, then it is cut; the total is the last thing to shorten ("total 10 ★").
    """
    game = view.game
    if game is None:
        left = _joined(["All Fives", f"room {view.code}", f"first to {view.rules.target_score}"])
        left.truncate(width)
        return left
    full = [f"room {view.code}", f"hand {game.hand_number}", f"first to {game.target}"]
    full.append(f"boneyard {game.boneyard}")
    short = [view.code, f"hand {game.hand_number}", f"to {game.target}", f"bone {game.boneyard}"]
    for right in (total_text(game), total_text(game, short=True)):
        for parts in (["All Fives", *full], full, short):
            left = _joined(parts)
            if left.cell_len + 1 + right.cell_len <= width:
                return Text.assemble(left, " " * (width - left.cell_len - right.cell_len), right)
    right = total_text(game, short=True)
    left = _joined(short)
    left.truncate(max(0, width - right.cell_len - 1), overflow="ellipsis")
    return Text.assemble(left, " " * max(1, width - left.cell_len - right.cell_len), right)


def _seat_chunk(view: RoomView, seat: int, names: Sequence[str], score: int | None) -> Text:
    game = view.game
    turn = game is not None and game.turn == seat and view.phase == "playing"
    chunk = Text()
    chunk.append("▶ " if turn else "  ", GOLD if turn else Style())
    you = seat == view.you
    chunk.append(names[seat], Style(bold=True, underline=you) if you or turn else Style())
    if you:
        chunk.append(" (you)", DULL)
    held = view.seats[seat]
    if held is not None and not held.connected:
        chunk.append(" away", Style(color="red"))
    if score is not None:
        chunk.append(f" {score} pts", Style(bold=True))
    if game is not None:
        count = game.hand_counts[seat]
        joint = " · " if score is not None else " "
        chunk.append(f"{joint}{count} tile{'s' if count != 1 else ''}", DULL)
    return chunk


def players(view: RoomView, width: int) -> list[Text]:
    """Each player (or team) with score and tiles left, on as few rows as fit."""
    names = display_names(view)
    game = view.game
    scores = game.scores if game is not None else None
    if view.rules.partnership:
        rows = []
        for team in (0, 1):
            row = Text()
            row.append(f"Team {'AB'[team]}", Style(bold=True))
            if scores is not None:
                row.append(f" {scores[team]} pts", Style(bold=True))
            for seat in (team, team + 2):
                row.append(" " if seat == team else "  ")
                row.append_text(_seat_chunk(view, seat, names, None))
            row.truncate(width)
            rows.append(row)
        return rows
    chunks = [
        _seat_chunk(view, seat, names, scores[seat] if scores is not None else None)
        for seat in range(len(view.seats))
    ]
    return _pack(chunks, width, Text("  │ ", DULL))


def _pack(chunks: Sequence[Text], width: int, separator: Text) -> list[Text]:
    """Chunks joined on rows no wider than `width`."""
    rows: list[Text] = []
    row = Text()
    for chunk in chunks:
        if row.cell_len and row.cell_len + separator.cell_len + chunk.cell_len > width:
            rows.append(row)
            row = Text()
        if row.cell_len:
            row.append_text(separator)
        row.append_text(chunk)
    if row.cell_len:
        rows.append(row)
    for line in rows:
        line.truncate(width)
    return rows


def rule(width: int, title: str = "") -> Text:
    """A thin line across, with a short title at its left."""
    if not title:
        return Text("─" * width, RULE)
    return Text.assemble(
        ("── ", RULE),
        (title, Style(dim=True, bold=True)),
        (" " + "─" * max(0, width - len(title) - 4), RULE),
    )


def last_tile(game: GameView) -> tuple[int, int] | None:
    """The pips of the tile played last in this hand, to highlight it."""
    for event in reversed(game.history):
        if isinstance(event, Played):
            high, low = event.tile.split("-")
            return int(high), int(low)
    return None


def hand_rows(view: RoomView, state: TableState, width: int) -> list[Text]:
    """Your tiles with their numbers (stable through a hand), the playable ones highlighted and
    the tiles just drawn marked `*` (two rows per row of tiles)."""
    game = view.game
    if game is None or game.hand is None:
        return []
    legal = {spec.tile for spec in game.legal} if state.my_turn() else set()
    hinted = state.hint.tile if state.hint is not None else None
    per_row = max(1, (width - 1) // TILE_WIDTH)
    numbered = state.numbered_hand()
    rows: list[Text] = []
    for start in range(0, len(numbered), per_row):
        numbers, tiles = Text(" "), Text(" ")
        for number, tile in numbered[start : start + per_row]:
            if tile == hinted:
                style = HINTED
            elif legal:
                style = PLAYABLE if tile in legal else DULL
            else:
                style = Style()
            label = f"{number}{'*' if tile in state.fresh else ''}"
            numbers.append(f"{label:^5} ", style if legal or tile == hinted else DULL)
            high, low = tile.split("-")
            tiles.append(f"[{high}|{low}]", style)
            tiles.append(" ")
        numbers.rstrip()
        tiles.rstrip()
        rows += [numbers, tiles]
    return rows


def end_choices(game: GameView, tile: str, ends: Sequence[str]) -> str:
    """What each end would make: "west (w) → 10 ★, east (e) → 7"."""
    shown = []
    for end in ends:
        total = total_after(game.layout, tile, end)
        shown.append(f"{end} ({end[0]}) → {total}{' ★' if scoring(total) else ''}")
    return ", ".join(shown)


def ends_rows(state: TableState) -> list[str]:
    """Every playable tile with the total each of its ends would make (for /ends)."""
    game = state.game
    if game is None or not state.my_turn():
        return ["What each tile would score shows on your turn."]
    by_tile: dict[str, list[str | None]] = {}
    for spec in game.legal:
        if spec.tile is not None:
            by_tile.setdefault(spec.tile, []).append(spec.end)
    numbers = state.numbers
    rows = []
    for tile, ends in sorted(by_tile.items(), key=lambda item: numbers.get(item[0], 0)):
        if ends == [None]:
            total = total_after(game.layout, tile, None)
            what = f"→ {total}{' ★' if scoring(total) else ''}"
        else:
            what = end_choices(game, tile, [end for end in ends if end is not None])
        rows.append(f"{numbers.get(tile, '?'):>3}  {tile}: {what}")
    return rows or ["No tile can be played: you draw or pass."]


def result_rows(state: TableState, view: RoomView, width: int) -> list[Text]:
    """The last hand's result (and the match summary once it is over), until Enter is pressed."""
    names = display_names(view)
    rows: list[Text] = []
    if state.result is not None:
        number = state.result_hand if state.result_hand is not None else "?"
        rows.append(rule(width, f"hand {number} result · Enter to go on"))
        rows += [
            Text(" " + line, Style(bold=True))
            for line in explain_hand(state.result, names, view.rules)
        ]
    if state.match_over:
        rows.append(rule(width, "the match · Enter to go on · /save FILE keeps the record"))
        rows += [Text(" " + line) for line in state.scoreboard.rows(names, view.rules)]
    for row in rows:
        row.truncate(width, overflow="ellipsis")
    return rows


def log_rows(log: Sequence[LogLine], count: int, width: int) -> list[Text]:
    """The last `count` log lines, cut to the width."""
    rows = []
    for line in list(log)[-count:] if count > 0 else []:
        text = Text(" " + line.text, LOG_STYLES[line.kind])
        text.truncate(width, overflow="ellipsis")
        rows.append(text)
    return rows


def notice_row(notice: Notice | None, width: int) -> list[Text]:
    """The latest notice (an error in words, a hint, a connection note), if any."""
    if notice is None:
        return []
    mark = {"error": "✗ ", "hint": "", "info": ""}[notice.kind]
    text = Text(f" {mark}{notice.text}", NOTICE_STYLES[notice.kind])
    text.truncate(width, overflow="ellipsis")
    return [text]


def status(view: RoomView, state: TableState, pending: Ask | None) -> Text:
    """One line saying what happens now and what to type."""
    names = display_names(view)
    game = view.game
    if not state.online:
        return Text(" Not connected: the table is as it was when the connection dropped", DULL)
    if pending is not None:
        if game is not None and state.my_turn():
            choices = end_choices(game, pending.tile, pending.ends)
            return Text(f" {pending.tile} goes {choices}: which end?", Style(bold=True))
        return Text(" " + pending.question, Style(bold=True))
    if view.phase == "waiting":
        return _waiting_status(view)
    if game is None:
        return Text(" ")
    if view.phase == "finished" or game.over:
        teams = view.rules.partnership
        verdict = describe(MatchEnded(winner=game.winner), names, teams).replace("team ", "Team ")
        sides = side_names(names, view.rules)
        scores = ", ".join(
            f"{side} {score}" for side, score in zip(sides, game.scores, strict=False)
        )
        after = (
            " /rematch to play again, /quit to leave"
            if view.you == view.host
            else " /quit to leave"
        )
        return Text.assemble(
            (f" {verdict}: {scores}.", Style(bold=True, color="green")), (after, DULL)
        )
    left = seconds_left(state, view)
    if state.my_turn():
        line = _your_turn(game, state)
        if left is not None and view.rules.turn_seconds is not None:
            line.append(f" · {left} s left", Style(bold=True, color="red" if left <= 10 else None))
        return line
    if game.turn is None:
        return Text(" ")
    seat = view.seats[game.turn]
    who = names[game.turn]
    if seat is not None and not seat.connected:
        when = f"in {left} s" if left is not None and left > 0 else "now"
        return Text(f" {who} is away: a bot plays for them {when} unless they come back", DULL)
    clock = f" ({left} s left)" if left is not None and view.rules.turn_seconds else ""
    return Text(f" {who} to play…{clock}", DULL)


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


def _your_turn(game: GameView, state: TableState) -> Text:
    numbered = state.numbered_hand()
    playable = [
        str(number) for number, tile in numbered if any(spec.tile == tile for spec in game.legal)
    ]
    if not game.layout.line:
        what = "lead any tile"
    elif len(playable) == 1:
        what = f"play {playable[0]}"
    else:
        what = f"play {', '.join(playable[:-1])} or {playable[-1]}"
    return Text.assemble(
        (" Your turn", Style(bold=True, color="green")),
        f": {what}",
        (" (its number, or the tile: 5-3)", DULL),
    )


def _waiting_status(view: RoomView) -> Text:
    free = sum(1 for seat in view.seats if seat is None)
    if view.you is not None and view.you == view.host:
        if free:
            return Text.assemble(
                (f" {free} free seat{'s' if free != 1 else ''}", Style(bold=True)),
                ": wait for friends, or /bots fill to seat bots; then /start",
            )
        return Text.assemble(
            (" Every seat is taken", Style(bold=True)), ": /start deals the first hand"
        )
    return Text(" Waiting for the host to start the match", DULL)


def waiting_rows(view: RoomView, join_line: str | None, width: int) -> list[Text]:
    """The seats of a room that has not started, and the line friends type to join."""
    names = display_names(view)
    rows = [Text(f" Room {view.code}: {_rules_words(view)}", Style(bold=True))]
    for index, seat in enumerate(view.seats):
        line = Text(f"   seat {index}  ")
        if seat is None:
            line.append("free", DULL)
        else:
            line.append(names[index], Style(bold=True))
            if seat.kind == "bot":
                line.append(f"  {seat.level} bot", DULL)
            if index == view.you:
                line.append("  (you)", DULL)
            if index == view.host:
                line.append("  host", DULL)
        rows.append(line)
    if join_line:
        rows += [
            Text(" "),
            Text.assemble(" Friends join with:  ", (join_line, Style(bold=True, color="cyan"))),
        ]
    for row in rows:
        row.truncate(width)
    return rows


def _rules_words(view: RoomView) -> str:
    rules = view.rules
    words = [f"{rules.players} players"]
    if rules.partnership:
        words.append("two teams")
    words.append(f"first to {rules.target_score}")
    return ", ".join(words)


def render(
    state: TableState,
    width: int,
    height: int,
    pending: Ask | None = None,
    join_line: str | None = None,
    extra: Sequence[Text] = (),
    scroll: int = 0,
) -> tuple[list[Text], list[Text]]:
    """The table for a `width` x `height` screen: rows for the top, and rows for just above the
    prompt (the notice and the status line). `extra` rows (help, /scores, /log) take the log's
    place, `scroll` rows up from their end; a hand's result is shown there until dismissed."""
    view = state.view
    if view is None:
        return [], notice_row(state.notice, width) or [Text(" Connecting…", DULL)]
    top = [header(view, width), *players(view, width), rule(width)]
    game = view.game
    bottom: list[Text] = []
    if game is not None and view.phase != "waiting":
        bottom += [
            rule(width, "your tiles" if game.hand is not None else ""),
            *hand_rows(view, state, width),
        ]
    bottom.append(rule(width))
    tail = [*notice_row(state.notice, width), status(view, state, pending)]
    spare = height - len(top) - len(bottom) - len(tail)
    if width < MIN_WIDTH or spare < 1:
        return _too_small(width, height, len(top) + len(bottom) + len(tail) + 1)
    result = result_rows(state, view, width) if not extra else []
    if view.phase == "waiting" or game is None:
        middle = waiting_rows(view, join_line, width)
    else:
        kept = max(len(result), min(MIN_LOG_ROWS, len(state.log)))
        middle = _fit_layout(game, display_names(view), width, spare - kept, state.last_layout)
    room = max(0, spare - len(middle))
    if extra:
        end = max(0, len(extra) - min(scroll, max(0, len(extra) - room)))
        below = list(extra)[max(0, end - room) : end] if room else []
    elif result:
        below = result[:room]
    else:
        below = log_rows(state.log, min(room, len(state.log)), width)
    return [*top, *middle, *bottom, *below], tail


def _too_small(width: int, height: int, needed_rows: int) -> tuple[list[Text], list[Text]]:
    """Instead of a table with parts missing: what size it needs."""
    message = Text(
        f" The terminal is too small ({width + 1}x{height + 1}): the table needs at least "
        f"{MIN_WIDTH + 1} columns and {needed_rows + 1} rows.",
        Style(bold=True),
    )
    lines = message.wrap(Console(width=max(10, width), color_system=None), max(10, width))
    return list(lines), []


def _fit_layout(
    game: GameView,
    names: Sequence[str],
    width: int,
    rows: int,
    previous: Layout | None = None,
) -> list[Text]:
    """The layout in at most `rows` rows when it can be (the arms shrink first).

    Before the lead of a new hand, the last hand's final layout is shown, dimmed.
    """
    if not game.layout.line:
        if game.over:
            return []
        leader = names[game.leader] if game.leader < len(names) else "the leader"
        waiting = Text(f" The table is empty: {leader} leads, with any tile.", DULL)
        if previous is None or not previous.line:
            return [waiting]
        caption = Text(f" How hand {game.hand_number - 1} ended:", DULL)
        drawn = [row.copy() for row in _shrink(previous, None, width, rows - 2)]
        for row in drawn:
            row.stylize(DULL)
        return [waiting, caption, *drawn]
    return _shrink(game.layout, last_tile(game), width, rows)


def _shrink(layout: Layout, last: tuple[int, int] | None, width: int, rows: int) -> list[Text]:
    """A layout drawn with its arms cut down until it fits `rows` rows (or they are gone)."""
    drawn = drawing.draw(layout, width - 2, None, last)
    arm_rows = max(drawing.arm_height(layout.north), drawing.arm_height(layout.south))
    while len(drawn) > rows and arm_rows > 0:
        arm_rows -= 1
        drawn = drawing.draw(layout, width - 2, arm_rows, last)
    return [Text(" ") + row for row in drawn]
