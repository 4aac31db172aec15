"""The table as rich Text rows for a terminal of a given size: pure, no terminal needed.

From top to bottom: a header (a tournament's table marked as one, room, hand, target, boneyard,
and the ends total in the right corner, gold on a multiple of five), the players with scores and
tile counts (▶ marks whose turn it is), the layout, your hand numbered with the playable tiles
highlighted, the log, the latest notice and a status line saying what to do. Everything also reads
without colour: playable tiles are listed in the status line and a scoring total carries a ★.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.style import Style
from rich.text import Text

from clients.cli import layout as drawing
from clients.cli import words
from clients.cli.commands import Ask
from clients.cli.i18n import _, ngettext
from clients.cli.log_lines import LogLine
from clients.cli.state import TableState, display_names
from clients.cli.status import notice_row, result_rows, status
from clients.cli.styles import DULL, GOLD, HINTED, LOG_STYLES, PLAYABLE, rule, wrap
from clients.cli.waiting_room import waiting_rows
from protocol.views import GameView, Layout, MatchEnded, Played, RoomView

TILE_WIDTH = 6
MIN_LOG_ROWS = 3
#: Rows kept for the notice when the table is laid out (so a notice never moves the table).
NOTICE_ROOM = 1
MIN_WIDTH = 30
#: Rows kept for the status line, which folds to two on a narrow screen.
STATUS_ROWS = 2
#: The most rows a layout takes once its arms are folded: the line (three rows where a double
#: lies across), an arm's mark above and below it, and the row listing the ends.
FOLDED_ROWS = 6
#: The fewest spaces between the header's left side and the ends total, so the two never read
#: as one phrase ("pank 10  otste summa 12").
HEADER_GAP = 2


def total_text(game: GameView | None, short: bool = False) -> Text:
    """The ends total for the corner: gold and starred when it scores ("total" alone if short)."""
    label = (_("total") if short else _("ends total")) + " "
    if game is None or not game.layout.line:
        return Text(f"{label}—", DULL)
    if scored_now(game):
        return Text.assemble(label, (f"{game.total} ★", GOLD))
    return Text(f"{label}{game.total}")


def scored_now(game: GameView) -> bool:
    """Whether the total on the table scored: the server's word on the play that made it."""
    for event in reversed(game.history):
        if isinstance(event, Played):
            return event.points > 0
    return False


def _joined(parts: Sequence[str]) -> Text:
    left = Text()
    for index, part in enumerate(parts):
        if index:
            left.append(" · ", DULL)
        left.append(part, Style(bold=True) if index == 0 and part == _("All Fives") else Style())
    return left


def tournament_mark(view: RoomView) -> list[str]:
    """The header's word for a tournament's table (`tournament_table`), first after the title
    so that it stays when the row gives way; nothing for an ordinary room."""
    # Short in every language: it fits at 60 columns beside the room, hand, target and boneyard.
    return [_("tournament")] if view.tournament_table else []


def header(view: RoomView, width: int) -> Text:
    """Room, hand, target, boneyard (after "tournament" at a tournament's table); the ends total
    in the right corner, always whole.

    When the row is too narrow the left side gives way first: the title goes, then the words
    shorten, then it is cut; the total is the last thing to shorten ("total 10 ★"). At least
    `HEADER_GAP` spaces always part the two sides.
    """
    game = view.game
    mark = tournament_mark(view)
    if game is None:
        left = _joined(
            [
                _("All Fives"),
                *mark,
                _("room {code}").format(code=view.code),
                _("first to {target}").format(target=view.rules.target_score),
            ]
        )
        left.truncate(width)
        return left
    full = [
        *mark,
        _("room {code}").format(code=view.code),
        _("hand {number}").format(number=game.hand_number),
        _("first to {target}").format(target=game.target),
        _("boneyard {count}").format(count=game.boneyard),
    ]
    short = [
        *mark,
        view.code,
        _("hand {number}").format(number=game.hand_number),
        _("to {target}").format(target=game.target),
        _("bone {count}").format(count=game.boneyard),
    ]
    for right in (total_text(game), total_text(game, short=True)):
        for parts in ([_("All Fives"), *full], full, short):
            left = _joined(parts)
            if left.cell_len + HEADER_GAP + right.cell_len <= width:
                return Text.assemble(left, " " * (width - left.cell_len - right.cell_len), right)
    right = total_text(game, short=True)
    left = _joined(short)
    left.truncate(max(0, width - right.cell_len - HEADER_GAP), overflow="ellipsis")
    if not left.cell_len:
        return Text.assemble(" " * max(0, width - right.cell_len), right)
    return Text.assemble(left, " " * (width - left.cell_len - right.cell_len), right)


def _seat_chunk(view: RoomView, seat: int, names: Sequence[str], score: int | None) -> Text:
    game = view.game
    turn = game is not None and game.turn == seat and view.phase == "playing"
    chunk = Text()
    chunk.append("▶ " if turn else "  ", GOLD if turn else Style())
    you = seat == view.you
    chunk.append(names[seat], Style(bold=True, underline=you) if you or turn else Style())
    if you:
        chunk.append(" " + _("(you)"), DULL)
    held = view.seats[seat]
    if held is not None and not held.connected:
        chunk.append(" " + _("away"), Style(color="red"))
    elif held is None and view.phase == "finished" and names[seat] != words.free_seat():
        # The name is the one the match was played by (unknown here: no departure is told).
        chunk.append(" " + _("left the table"), Style(color="red"))
    if score is not None:
        chunk.append(" " + _("{score} pts").format(score=score), Style(bold=True))
    if game is not None:
        count = game.hand_counts[seat]
        joint = " · " if score is not None else " "
        chunk.append(joint + words.tiles_word(count), DULL)
    return chunk


def players(view: RoomView, width: int, played: list[str] | None = None) -> list[Text]:
    """Each player (or team) with score and tiles left, on as few rows as fit (a finished
    match's seats by the `played` names)."""
    names = display_names(view, played)
    game = view.game
    scores = game.scores if game is not None else None
    if view.rules.partnership:
        rows = []
        for team in (0, 1):
            row = Text()
            row.append(words.team_word(team), Style(bold=True))
            if scores is not None:
                row.append(" " + _("{score} pts").format(score=scores[team]), Style(bold=True))
            pad = row.cell_len
            partners = [_seat_chunk(view, seat, names, None) for seat in (team, team + 2)]
            whole = Text.assemble(row, " ", partners[0], "  ", partners[1])
            if whole.cell_len <= width:
                rows.append(whole)
                continue
            # Too wide: the partner on a row of its own under the first, so no count is lost.
            for index, chunk in enumerate(partners):
                line = Text.assemble(row if index == 0 else " " * pad, " ", chunk)
                if line.cell_len > width:
                    line.truncate(width - 1)
                    line.append("…")
                rows.append(line)
        return rows
    chunks = [
        _seat_chunk(view, seat, names, scores[seat] if scores is not None else None)
        for seat in range(len(view.seats))
    ]
    return _pack(chunks, width, Text("  │ ", DULL))


def turn_order(view: RoomView, width: int, played: list[str] | None = None) -> str:
    """With three or four players, who plays after whom: "turn order: Ann → Bot 1 → Bot 2"
    (names cut to fit the row); nothing with two."""
    names = display_names(view, played)
    if len(names) < 3:
        return ""
    for longest in (24, 12, 8, 5):
        cut = [name if len(name) <= longest else name[: longest - 1] + "…" for name in names]
        title = _("turn order: {names}").format(names=" → ".join(cut))
        if len(title) + 8 <= width:
            return title
    return ""


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
    per_row = _tiles_per_row(width)
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


def log_rows(log: Sequence[LogLine], count: int, width: int) -> list[Text]:
    """The latest log lines on at most `count` rows, each folded whole to the width (a hand's
    end with four players runs past a row: none of its numbers is lost); a line that does not
    fit whole is left for /log, and the newest alone is cut with a visible "…"."""
    rows: list[Text] = []
    for line in reversed(list(log)[-count:] if count > 0 else []):
        folded = wrap([Text(" " + line.text, LOG_STYLES[line.kind])], width)
        if len(rows) + len(folded) > count:
            if not rows:
                rows = folded[:count]
                rows[-1].truncate(width - 1)
                rows[-1].append("…")
            break
        rows = folded + rows
    return rows


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
        return [], notice_row(state.notice, width) or [Text(" " + _("Connecting…"), DULL)]
    played = state.played_names
    top = [
        header(view, width),
        *players(view, width, played),
        rule(width, turn_order(view, width, played)),
    ]
    game = view.game
    bottom: list[Text] = []
    if game is not None and view.phase != "waiting" and game.hand is not None:
        bottom += [rule(width, _("your tiles")), *hand_rows(view, state, width)]
    bottom.append(rule(width))
    status_rows = wrap([status(view, state, pending, width)], width)[:STATUS_ROWS]
    fixed = len(top) + len(bottom)
    # The size the "too small" screen asks for leaves out what changes from move to move (the
    # status line's words, a notice, the layout): it says the same until the size changes.
    needed = len(top) + _bottom_room(view, width) + STATUS_ROWS + NOTICE_ROOM
    needed += _middle_room(view, join_line, width)
    # The layout is drawn for a notice row whether or not one is shown, so that a notice
    # coming or going (a hint, a refusal) never re-flows the table: the log takes that row.
    steady = height - fixed - len(status_rows) - NOTICE_ROOM
    if width < MIN_WIDTH or steady < 1:
        return _too_small(width, height, needed)
    result = result_rows(state, view, width) if not extra else []
    if view.phase == "waiting" or game is None:
        middle = waiting_rows(view, join_line, width)
    else:
        kept = max(len(result), min(MIN_LOG_ROWS, len(state.log)))
        rows = steady - kept
        if not result and game.layout.line:
            # The log gives way before any open end does.
            rows = max(rows, min(steady, layout_rows_needed(game.layout, width)))
        middle = _fit_layout(game, display_names(view, played), width, rows, state.last_layout)
    if len(middle) > steady + NOTICE_ROOM:
        return _too_small(width, height, needed)
    # A notice takes the log's rows, never the table's (none left: it waits for a bigger screen).
    notice = notice_row(state.notice, width, height - fixed - len(status_rows) - len(middle))
    tail = [*notice, *status_rows]
    spare = height - fixed - len(tail)
    room = max(0, spare - len(middle))
    extra = wrap(extra, width)
    if extra:
        end = max(0, len(extra) - min(scroll, max(0, len(extra) - room)))
        below = list(extra)[max(0, end - room) : end] if room else []
        if below and end - room > 0:  # rows above are out of sight: say so, in the top row
            count = end - room + 1
            said = ngettext(
                "({count} more row above: PageUp)", "({count} more rows above: PageUp)", count
            )
            below[0] = Text(" " + said.format(count=count), DULL)
        if len(below) > 1 and end < len(extra):
            count = len(extra) - end + 1
            said = ngettext(
                "({count} more row below: PageDown)", "({count} more rows below: PageDown)", count
            )
            below[-1] = Text(" " + said.format(count=count), DULL)
    elif result:
        below = result[:room]
        if room and len(result) > room:  # say so rather than end mid-result
            count = len(result) - room + 1
            said = ngettext(
                "({count} more row: a taller terminal shows it)",
                "({count} more rows: a taller terminal shows them)",
                count,
            )
            below[-1] = Text(" " + said.format(count=count), DULL)
    else:
        log = shown_log(state.log, view)
        below = log_rows(log, min(room, len(log)), width)
    return [*top, *middle, *bottom, *below], tail


def shown_log(log: Sequence[LogLine], view: RoomView) -> list[LogLine]:
    """The log as the table shows it: once the match is over the status line says who won with
    the scores, so its bare "Bot 2 wins the match" line is not shown again right above it."""
    lines = list(log)
    if view.phase != "finished" and (view.game is None or not view.game.over):
        return lines
    ends = [index for index, line in enumerate(lines) if isinstance(line.event, MatchEnded)]
    return [line for index, line in enumerate(lines) if not ends or index != ends[-1]]


def _tiles_per_row(width: int) -> int:
    """How many of your tiles a row of the hand holds."""
    return max(1, (width - 1) // TILE_WIDTH)


def _bottom_room(view: RoomView, width: int) -> int:
    """The rows below the layout that the table needs whatever is played: your tiles (as many
    as were dealt, or more once drawn) between their two rules, or the closing rule alone."""
    game = view.game
    if game is None or view.phase == "waiting" or game.hand is None:
        return 1
    tiles = max(len(game.hand), view.rules.tiles_per_hand)
    return 2 + 2 * -(-tiles // _tiles_per_row(width))


def _middle_room(view: RoomView, join_line: str | None, width: int) -> int:
    """The rows between the players and your tiles that the table needs whatever is played: a
    waiting room's seats, or a layout at its most folded (`FOLDED_ROWS`)."""
    if view.phase == "waiting" or view.game is None:
        return len(waiting_rows(view, join_line, width))
    return FOLDED_ROWS


def _too_small(width: int, height: int, needed_rows: int) -> tuple[list[Text], list[Text]]:
    """Instead of a table with parts missing: what size it needs."""
    said = _(
        "The terminal is too small ({width}x{height}): the table needs at least "
        "{columns} columns and {rows} rows."
    ).format(width=width + 1, height=height + 1, columns=MIN_WIDTH + 1, rows=needed_rows + 1)
    message = Text(" " + said, Style(bold=True))
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
        leader = names[game.leader] if game.leader < len(names) else "?"
        said = _("The table is empty: {who} leads, with any tile.").format(who=leader)
        waiting = Text(" " + said, DULL)
        if previous is None or not previous.line:
            return [waiting]
        said = _("How hand {number} ended:").format(number=game.hand_number - 1)
        caption = Text(" " + said, DULL)
        drawn = [row.copy() for row in _shrink(previous, None, width, rows - 2)]
        if len(drawn) > rows - 2:  # no room beside a hand's result: it shows once read
            return [waiting]
        for row in drawn:
            row.stylize(DULL)
        return [waiting, caption, *drawn]
    return _shrink(game.layout, last_tile(game), width, rows)


def _shrink(layout: Layout, last: tuple[int, int] | None, width: int, rows: int) -> list[Text]:
    """A layout drawn with its arms cut down until it fits `rows` rows, each open end's outer
    tile kept; when that is still too tall (or the line too wide), the arms fold and a row
    lists every end that counts."""
    drawn = drawing.draw(layout, width - 2, None, last)
    arm_rows = max(drawing.arm_height(layout.north), drawing.arm_height(layout.south))
    while len(drawn) > rows and arm_rows > 0:
        arm_rows -= 1
        drawn = drawing.draw(layout, width - 2, arm_rows, last)
    if len(drawn) > rows or not drawing.line_fits(layout, width - 2):
        drawn = [*drawing.draw(layout, width - 2, 0, last, fold=True), drawing.ends_row(layout)]
    return [Text(" ") + row for row in drawn]


def layout_rows(layout: Layout, last: tuple[int, int] | None, width: int, rows: int) -> list[Text]:
    """The layout as the table draws it in at most `rows` rows (for `allfives show` too)."""
    return _shrink(layout, last, width, rows)


def layout_rows_needed(layout: Layout, width: int) -> int:
    """Rows the layout takes with every open end's outer tile drawn (its arms cut down)."""
    return len(drawing.draw(layout, width - 2, 0))
