"""`allfives show URL GAME`: a finished game replayed in the terminal, stepped with the arrow keys.

The game comes from the server's API (`GET /api/games/ID`, asked with this user's key for the
server, so a private room's game shows to its players), its table at every step too
(`GET /api/games/ID/positions`: nothing is placed or counted here), with the hard bot's review when the
server gives one (`GET /api/games/ID/review`; busy or missing: the replay shows without it).
The table is drawn as `allfives join` draws it (`clients.cli.render.layout_rows`): every seat's
tiles (the match is over), the scores at each step, what the move was and what it cost.
Keys: → and ← a step, PageDown and PageUp a hand, Home and End, q to quit; on the last step
↓ and ↑ scroll the review's summary where it is taller than the screen (a row says which rows
show). Every row is wrapped at spaces, never cut, and the keys are always the last rows.
"""

from __future__ import annotations

import argparse
import re
import sys

from rich.console import Console
from rich.style import Style
from rich.text import Text

from clients.cli import local, words
from clients.cli.api import Api, ApiError
from clients.cli.i18n import N_, _, ngettext
from clients.cli.keys import KeyStore
from clients.cli.render import layout_rows
from clients.cli.replay_steps import Replay, Step, replay_of
from clients.cli.review_words import line_words, seat_name, summary_text
from clients.cli.safe import safe_text, visible
from clients.cli.seats import normalize_url
from clients.cli.styles import DULL, rule, wrap
from protocol.api import GameDetail, GamePositions
from protocol.records import RecordFormatError, check_record
from protocol.review import REVIEW_VERSION, Review

HELP = N_("→ ← step · PageDown PageUp hand · Home End · q quit")
#: The row under a summary taller than the screen: which of its rows show.
MORE = N_("(review rows {first}-{last} of {total}: ↓ ↑ scroll)")


#: A game's id is URL-safe base64 of 15 bytes (`server.play.finish.game_id`): one in 64 begins
#: with "-", which argparse would take for an option.
DASH_ID = re.compile(r"-[A-Za-z0-9_-]{19}")


def given(argv: list[str]) -> list[str]:
    """The command line with a game id that begins with "-" moved after `--`, where it can only
    be the game (`allfives show URL -Ab3…` as `history` prints it)."""
    ids = [arg for arg in argv if DASH_ID.fullmatch(arg)]
    if len(ids) != 1 or "--" in argv:
        return argv
    return [arg for arg in argv if arg != ids[0]] + ["--", ids[0]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives show`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )
    parser.add_argument("game", help=_("the game's id (allfives history lists them)"))


def run(args: argparse.Namespace) -> int:
    """Fetch the game and step through it until q; returns the exit status."""
    if local.no_terminal("allfives show"):  # i18n: a command
        return 2
    url = normalize_url(args.url)
    known = KeyStore().existing(url)
    api = Api(url, known[1] if known is not None else None)
    # The game, its positions and the review can take seconds (a review is worked out on the
    # server): the screen says so rather than stay blank.
    said = _("Loading game {game} and its review from {url}…")
    print(visible(said.format(game=args.game, url=url.rstrip("/"))), flush=True)
    try:
        game = api.get(api.game_path(args.game), GameDetail, "game")
        check_record(game.record)
        positions = api.get(api.positions_path(args.game), GamePositions, "game").positions
        if not positions:
            raise RecordFormatError("no positions")  # i18n: not shown (a server's fault)
    except ApiError as error:
        print(visible(f"allfives show: {error.text}"), file=sys.stderr)  # i18n: a command
        return 1
    except RecordFormatError as error:
        said = _("the server's record is not one: {reason}").format(reason=error)
        print(visible(f"allfives show: {said}"), file=sys.stderr)  # i18n: a command
        return 1
    review: Review | str | None
    try:
        review = api.get(api.review_path(args.game), Review, "review")
    except ApiError as error:
        review = error.text
    if isinstance(review, Review) and review.version < REVIEW_VERSION:
        review = _("a review from an older server, counted in other points: not shown")
    viewer = Viewer(replay_of(game.record, positions), review, visible(args.game))
    return viewer.run()


def step_words(step: Step, names: list[str], teams: bool) -> str:
    """What a step was, in words."""
    who = seat_name(names, step.seat) if step.seat is not None else ""
    drew = ""
    if step.drew:
        drew = ngettext("{who} drew {count} tile", "{who} drew {count} tiles", step.drew)
        drew = drew.format(who=who, count=step.drew)
    if step.kind == "deal":
        return _("Hand {hand}: the deal; {who} leads").format(hand=step.hand, who=who)
    if step.kind == "passed":
        if drew:
            return _("{drew}, then passed").format(drew=drew)
        return _("{who} passed").format(who=who)
    if step.kind == "played":
        said = PLAY_WORDS[(step.end is None, bool(drew), bool(step.points))]
        end = words.end_word(step.end)
        return _(said).format(
            who=who, drew=drew, tile=step.tile, end=end, total=step.total, points=step.points
        )
    result = step.result
    points = result.points if result is not None else []
    gains = [
        (_("{side} scores {points}") if p > 0 else _("{side} loses {points}")).format(
            side=side_name(side, names, teams), points=abs(p)
        )
        for side, p in enumerate(points)
        if p
    ]
    kind = _(HOW_WORDS.get(result.kind if result is not None else "ended", HOW_WORDS["ended"]))
    if not gains:
        said = _("Hand {hand} over ({how}): nobody scores")
        return said.format(hand=step.hand, how=kind)
    said = _("Hand {hand} over ({how}): {gains}")
    return said.format(hand=step.hand, how=kind, gains=", ".join(gains))


#: A play in words, by (a lead, after drawing, scoring).
PLAY_WORDS = {
    (True, False, False): N_("{who} led {tile}: total {total}"),
    (True, False, True): N_("{who} led {tile}: total {total}, scores {points}"),
    (True, True, False): N_("{drew}, then led {tile}: total {total}"),
    (True, True, True): N_("{drew}, then led {tile}: total {total}, scores {points}"),
    (False, False, False): N_("{who} played {tile} {end}: total {total}"),
    (False, False, True): N_("{who} played {tile} {end}: total {total}, scores {points}"),
    (False, True, False): N_("{drew}, then played {tile} {end}: total {total}"),
    (False, True, True): N_("{drew}, then played {tile} {end}: total {total}, scores {points}"),
}
#: How a hand ended, in words.
HOW_WORDS = {
    "domino": N_("went out"),
    "blocked": N_("blocked"),
    "won": N_("reached the target"),
    "ended": N_("ended"),
}


def side_name(side: int, names: list[str], teams: bool) -> str:
    """A seat's name, or a team's with its two players."""
    if not teams:
        return seat_name(names, side)
    said = _("Team {letter} ({first} & {second})")
    return said.format(
        letter="AB"[side], first=seat_name(names, side), second=seat_name(names, side + 2)
    )


def screen(
    replay: Replay, at: int, review: Review | str | None, width: int, height: int, title: str
) -> list[Text]:
    """The replay at step `at` as rows for a `width` x `height` terminal."""
    step = replay.steps[at]
    names, teams = replay.names, replay.teams
    rows = wrap(
        [
            Text(
                " "
                + _("Game {game} · hand {hand} of {hands} · step {step} of {steps}").format(
                    game=title,
                    hand=step.hand,
                    hands=replay.hands,
                    step=at + 1,
                    steps=len(replay.steps),
                ),
                Style(bold=True),
            ),
            Text(
                " "
                + " · ".join(
                    f"{side_name(side, names, teams)} {score}"
                    for side, score in enumerate(step.scores)
                )
            ),
            Text(" " + step_words(step, names, teams)),
        ],
        width,
    )
    line = _review_line(replay, step, review)
    if line is not None:
        rows += wrap([line], width)  # the move's reasons, whole at any width
    hands: list[Text] = [rule(width, _("every hand"))]
    for seat, tiles in enumerate(step.tiles):
        mark = "▶ " if seat == step.seat and step.kind != "hand_ended" else "  "
        text = Text(f"{mark}{seat_name(names, seat)}: ")
        text.append(" ".join(f"[{t[0]}|{t[-1]}]" for t in tiles) or _("(no tiles)"))
        hands.append(text)
    hands = wrap(hands, width)
    hands.append(Text("  " + _("boneyard: {count}").format(count=step.boneyard), DULL))
    tail = keys_rows(width)
    spare = max(1, height - len(rows) - len(hands) - len(tail) - 1)
    last = None
    if step.kind == "played" and step.tile is not None:
        last = (int(step.tile[0]), int(step.tile[-1]))
    board = [rule(width, _("the table"))]
    if step.layout.line:
        board += layout_rows(step.layout, last, width, spare)
    else:
        board.append(Text(" " + _("The table is empty."), DULL))
    return [*rows, *board, *hands, *tail]


def keys_rows(width: int) -> list[Text]:
    """The rule and the keys under every screen, wrapped to `width`."""
    return [rule(width), *wrap([Text(" " + _(HELP), DULL)], width)]


def fitted(rows: list[Text], height: int, tail: int) -> list[Text]:
    """`rows` in `height` rows, the last `tail` of them (the keys) always kept."""
    if len(rows) <= height:
        return rows
    return [*rows[: max(0, height - tail)], *rows[-tail:]]


def _review_line(replay: Replay, step: Step, review: Review | str | None) -> Text | None:
    if review is None:
        return None
    if isinstance(review, str):
        return Text(" " + _("(no review: {reason})").format(reason=review), DULL)
    if step.kind not in ("played", "passed"):
        return None
    line = next((m for m in review.moves if (m.hand, m.move) == (step.hand, step.move)), None)
    if line is None:
        return Text(" " + _("review: no choice here"), DULL)
    who = seat_name(replay.names, line.seat)
    said = line_words(line, replay.names)
    if not line.lost > 0:
        return Text(f" {who}: {said}", Style(color="green"))
    return Text(f" {who}: {said}", Style(color="red", bold=line.costly))


def summary(replay: Replay, review: Review | str | None) -> list[Text]:
    """Each player's accuracy, points lost a move and costliest moves, after the last step."""
    if not isinstance(review, Review):
        return []
    rows: list[Text] = [Text(" " + _("The hard bot's review, each player:"), Style(bold=True))]
    for player in review.players:
        rows += summary_text(player, replay.names)
    return rows


def with_summary(
    rows: list[Text], said: list[Text], height: int, width: int, scroll: int = 0
) -> tuple[list[Text], int]:
    """The last step's rows with the review's summary above the keys, and the scroll used
    (kept within the summary): the table and the hands (from the first rule on) give way to
    it where the screen is too short for both, and a summary still taller than the room left
    shows from row `scroll`, with a row under it saying which of its rows show."""
    tail = len(keys_rows(width))
    head, keys = rows[:-tail], rows[-tail:]
    if len(head) + len(said) + len(keys) > height:
        head = head[: next((i for i, row in enumerate(head) if row.plain.startswith("──")), 3)]
    room = max(1, height - len(head) - len(keys))
    if len(said) <= room:
        return [*head, *said, *keys], 0
    shown = max(1, room - 1)
    scroll = max(0, min(scroll, len(said) - shown))
    more = _(MORE).format(first=scroll + 1, last=scroll + shown, total=len(said))
    mark = wrap([Text(" " + more, Style(bold=True))], width)[:1]
    return [*head, *said[scroll : scroll + shown], *mark, *keys], scroll


class Viewer:
    """The full-screen replay (prompt_toolkit), drawn by `screen`."""

    def __init__(self, replay: Replay, review: Review | str | None, title: str) -> None:
        self.replay = replay
        self.review = review
        self.title = title
        self.at = 0
        self.scroll = 0  # the first row of the last step's summary shown

    def go(self, index: int) -> None:
        """Show step `index` (kept within the steps)."""
        self.at = max(0, min(len(self.replay.steps) - 1, index))
        self.scroll = 0

    def hand(self, by: int) -> None:
        """The first step of the next (or, with -1, this or the previous) hand."""
        steps = self.replay.steps
        hand = steps[self.at].hand
        if by < 0:
            first = next(i for i, s in enumerate(steps) if s.hand == hand)
            if self.at > first:
                self.go(first)
                return
        wanted = hand + by
        found = next((i for i, s in enumerate(steps) if s.hand == wanted), None)
        self.go(found if found is not None else (0 if by < 0 else len(steps) - 1))

    def text(self, width: int, height: int) -> str:
        """The screen as ANSI text."""
        rows = screen(self.replay, self.at, self.review, width, height, self.title)
        if self.at == len(self.replay.steps) - 1:
            said = wrap(summary(self.replay, self.review), width)
            rows, self.scroll = with_summary(rows, said, height, width, self.scroll)
        rows = fitted(rows, max(1, height), len(keys_rows(width)))
        console = Console(width=width, force_terminal=True, color_system="standard")
        with console.capture() as capture:
            for row in rows:
                console.print(safe_text(row), no_wrap=True, overflow="crop", crop=True)
        return capture.get()

    def run(self) -> int:
        """Step through the game until q (or Ctrl-C, Ctrl-D)."""
        from prompt_toolkit.application import Application
        from prompt_toolkit.formatted_text import ANSI
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys
        from prompt_toolkit.layout import Layout, Window
        from prompt_toolkit.layout.controls import FormattedTextControl

        keys = KeyBindings()
        steps = len(self.replay.steps)
        moves = {"right": 1, "left": -1}
        for key, by in moves.items():
            keys.add(key)(lambda event, by=by: self.go(self.at + by))
        keys.add("pagedown")(lambda event: self.hand(1))
        keys.add("pageup")(lambda event: self.hand(-1))
        keys.add("home")(lambda event: self.go(0))
        keys.add("end")(lambda event: self.go(steps - 1))
        keys.add("down")(lambda event: setattr(self, "scroll", self.scroll + 1))
        keys.add("up")(lambda event: setattr(self, "scroll", max(0, self.scroll - 1)))
        for key in ("q", "c-c", "c-d"):
            keys.add(key)(lambda event: event.app.exit(result=0))
        # Every other key does nothing. What reads as a mouse report is typed or pasted bytes
        # (ESC [ 3 1 m, a colour code), which prompt_toolkit's own handler choked on (a
        # traceback); and Escape is where every pasted sequence starts, so it does not quit.
        keys.add(Keys.Vt100MouseEvent)(lambda event: None)
        keys.add(Keys.Any)(lambda event: None)

        def body() -> ANSI:
            size = app.output.get_size()
            return ANSI(self.text(max(20, size.columns - 1), max(5, size.rows - 1)))

        app: Application[int] = Application(
            layout=Layout(Window(FormattedTextControl(body))),
            key_bindings=keys,
            full_screen=True,
        )
        result = app.run()
        return result if isinstance(result, int) else 0
