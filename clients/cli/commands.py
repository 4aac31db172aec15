"""What a typed line means: a move to send, a question back (which end?), a refusal, a command.

Pure: `interpret(line, view, pending)` looks only at the room view. It refuses what the server
would refuse (not your turn, a tile you do not hold or that fits no end, host-only commands) with
a sentence, so nothing doomed is sent.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from clients.cli import words
from clients.cli.i18n import N_, _
from clients.cli.state import display_names
from protocol import messages as msg
from protocol.tiles import END_NAMES, format_tile
from protocol.views import BotLevel, GameView, MoveSpec, RoomView

END_LETTERS = {"n": "north", "s": "south", "e": "east", "w": "west"}
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "hard")

MOVE = re.compile(
    r"^(?P<tile>[0-9]+|[0-6]\s*[-|/]\s*[0-6])\s*(?P<end>north|south|east|west|[nsew])?$",
    re.IGNORECASE | re.ASCII,
)
#: A line echoed in a refusal is cut to this many characters (the reason is what matters).
ECHOED = 24


def typed_form(line: str) -> str:
    """What was typed, in the form it is read: full-width forms as their plain ones (NFKC:
    "６-６" is 6-6) and every script's decimal digits as 0-9 (Arabic-Indic "٣" is 3), so that
    a tile's number and a tile are read alike whatever digits the keyboard gives."""
    plain = unicodedata.normalize("NFKC", line)
    return "".join(
        str(unicodedata.decimal(char)) if not char.isascii() and char.isdecimal() else char
        for char in plain
    )


def cut(text: str) -> str:
    """A typed word as a refusal names it: cut to ECHOED characters with a visible "…"."""
    return text if len(text) <= ECHOED else text[: ECHOED - 1] + "…"


def echoed(text: str) -> str:
    """A typed line as a refusal quotes it: cut to ECHOED characters with a visible "…"."""
    if len(text) <= ECHOED:
        return repr(text)
    return repr(text[: ECHOED - 1]) + "…"


#: The table's help: how to play and everyone's commands, then the host's, then the rest.
HELP = N_("""\
Play: a tile's number (3) or the tile (5-3); add an end to pick it (5-3 n).
A tile that fits several ends asks which: n(orth), s(outh), e(ast), w(est).
/hint              what the hard bot would play now
/ends              what each playable tile would score at each end
/scores            points hand by hand, and the biggest play
/log               the whole log (PageUp and PageDown scroll it too)
/save FILE         write the match record (for allfives replay)
/chat TEXT         say something to the table""")

#: The host's commands, shown in a room that has a host (a tournament's table has none).
HOST_HELP = N_("""\
/bots add LEVEL    seat a bot: easy, normal or hard (host)
/bots fill LEVEL   seat bots in every free seat (host)
/bots remove SEAT  free a bot's seat (host)
/start             deal the first hand (host)
/rematch           play again with the same seats (host)""")

#: The rest of the help, for everyone.
MORE_HELP = N_("""\
/back              take your seat back from the stand-in that plays it
/review            after a match: your costliest moves, by the hard bot
/link              a one-time code to play as you on another device
/quit              leave the table (Ctrl-D too)""")


@dataclass(frozen=True)
class Send:
    """Send these messages to the server."""

    messages: tuple[msg.ClientMessage, ...]


@dataclass(frozen=True)
class Ask:
    """The tile fits several ends: ask which, then play it there (`problem`: why asked again)."""

    tile: str
    ends: tuple[str, ...]
    problem: str | None = None

    @property
    def question(self) -> str:
        """The question for the player."""
        choices = words.either([f"{words.end_word(end)} ({end[0]})" for end in self.ends])
        return _("{tile} fits {choices}: which end?").format(tile=self.tile, choices=choices)


@dataclass(frozen=True)
class Refuse:
    """Nothing is sent: the reason, in words."""

    reason: str


@dataclass(frozen=True)
class Show:
    """Text for the player (the help)."""

    text: str


@dataclass(frozen=True)
class Quit:
    """Leave the table."""


@dataclass(frozen=True)
class Board:
    """Show something the client holds: the scoreboard (`scores`), the whole log (`log`), or
    what each playable tile would score at each end (`ends`)."""

    what: str


@dataclass(frozen=True)
class Save:
    """Ask the server for the match record and write it to `path`."""

    path: str


Action = Send | Ask | Refuse | Show | Quit | Board | Save | None


def interpret(
    line: str,
    view: RoomView | None,
    pending: Ask | None = None,
    numbers: Mapping[int, str] | None = None,
) -> Action:
    """What a typed line asks for (None: nothing, e.g. an empty line).

    `numbers` maps the numbers shown next to the tiles to the tiles (default: 1 for the first
    tile of the hand, and so on). An answer to "which end?" that is no end of the tile asks again.
    """
    text = line.strip()
    if not text.startswith("/"):  # a move (a command's words, a chat line, stay as typed)
        text = typed_form(text).strip()
    if pending is not None:
        chosen = _end_named(text)
        if chosen is not None:
            played = _play_at(pending.tile, chosen, pending.ends, view)
            if isinstance(played, Refuse) and chosen not in pending.ends:
                return Ask(pending.tile, pending.ends, played.reason)
            return played
        if not text:
            return Refuse(_("{tile} not played").format(tile=pending.tile))
        fresh = interpret(text, view, None, numbers)
        letters = words.either([end[0] for end in pending.ends])
        if isinstance(fresh, Ask) and fresh.tile == pending.tile and fresh.problem is None:
            said = _("which end for {tile}: {letters}, or Enter")
            return Ask(pending.tile, pending.ends, said.format(tile=pending.tile, letters=letters))
        if isinstance(fresh, Refuse):
            if MOVE.match(text) is None and not text.startswith("/"):
                said = _("{typed} is no end: {letters}, or Enter")
                return Ask(
                    pending.tile, pending.ends, said.format(typed=echoed(text), letters=letters)
                )
            return Ask(pending.tile, pending.ends, fresh.reason)
        return fresh
    if not text:
        return None
    if text.startswith("/"):
        return _command(text, view)
    found = MOVE.match(text)
    if found is None:
        if text.lower() in ("pass", "p"):
            return _pass(view)
        said = _("{typed} is not a move: type a tile's number, a tile like 5-3, or /help")
        return Refuse(said.format(typed=echoed(text)))
    return _move(found.group("tile"), found.group("end"), view, numbers)


def _end_named(text: str) -> str | None:
    word = text.lower()
    if word in END_LETTERS:
        return END_LETTERS[word]
    return word if word in END_NAMES else None


def _playing(view: RoomView | None) -> tuple[RoomView, GameView] | Refuse:
    """The view and its match when this client may play now, else why not."""
    if view is None:
        return Refuse(_("not in a room yet"))
    if view.phase != "playing" or view.game is None:
        if view.phase == "finished":
            return Refuse(_("the match is over: /rematch to play again"))
        return Refuse(_("the match has not started: /start once every seat is taken"))
    if view.you is None:
        return Refuse(_("you are watching: only seated players play"))
    return view, view.game


def _move(
    written: str,
    end_written: str | None,
    view: RoomView | None,
    numbers: Mapping[int, str] | None = None,
) -> Action:
    checked = _playing(view)
    if isinstance(checked, Refuse):
        return checked
    view, game = checked
    hand = game.hand or []
    if numbers is None:
        numbers = {index + 1: tile for index, tile in enumerate(hand)}
    as_written = None
    if written.isdigit():
        number = int(written) if len(written) <= ECHOED else 0  # no tile has a longer number
        if number not in numbers:
            held = sorted(numbers)
            shown = ", ".join(map(str, held))
            if held == list(range(1, len(held) + 1)) and len(held) > 2:
                shown = _("1 to {last}").format(last=len(held))
            said = _("there is no tile {number}: your tiles are numbered {shown}")
            return Refuse(said.format(number=cut(written.lstrip("0") or "0"), shown=shown))
        tile = numbers[number]
    else:
        first, second = re.findall(r"[0-6]", written)
        tile = format_tile(int(first), int(second))
        if tile not in hand:
            return Refuse(_("you do not hold {tile}").format(tile=tile))
        as_written = f"{first}-{second}"
    if game.turn != view.you:
        names = display_names(view)
        if game.turn is None:
            return Refuse(_("it is not your turn"))
        return Refuse(_("it is {who}'s turn, not yours").format(who=names[game.turn]))
    specs = [spec for spec in game.legal if spec.tile == tile]
    if not specs:
        return Refuse(_why_not(tile, game))
    ends = tuple(spec.end for spec in specs if spec.end is not None)
    if not ends:
        # A lead keeps the order it was written in: its first number faces west.
        sent = tile if as_written is None or game.layout.line else as_written
        return Send((msg.Play(tile=sent),))
    chosen = _end_named(end_written) if end_written else None
    if chosen is not None:
        return _play_at(tile, chosen, ends, view)
    if _lone_double(game) and set(ends) == {"west", "east"}:
        return Send((msg.Play(tile=tile, end="east"),))
    return Ask(tile, tuple(end for end in END_NAMES if end in ends))


def _play_at(tile: str, end: str, ends: tuple[str, ...], view: RoomView | None) -> Action:
    if end not in ends:
        said = _("{tile} cannot go {end}; it fits {ends}")
        fits = words.either([words.end_word(each) for each in ends])
        return Refuse(said.format(tile=tile, end=words.end_word(end), ends=fits))
    checked = _playing(view)
    if isinstance(checked, Refuse):
        return checked
    game = checked[1]
    if not any(spec.tile == tile and spec.end == end for spec in game.legal):
        return Refuse(_("{tile} no longer fits {end}").format(tile=tile, end=words.end_word(end)))
    return Send((msg.Play(tile=tile, end=end),))  # type: ignore[arg-type]


def _lone_double(game: GameView) -> bool:
    """Whether the table holds only a lead double, whose two sides are alike."""
    layout = game.layout
    return len(layout.line) == 1 and layout.line[0][0] == layout.line[0][1]


def _why_not(tile: str, game: GameView) -> str:
    playable = sorted({spec.tile for spec in game.legal if spec.tile is not None})
    if len(playable) == 1:
        return _("{tile} cannot be played now: only {only} can").format(tile=tile, only=playable[0])
    ends = game.ends
    named = zip(END_NAMES, (ends.west, ends.east, ends.north, ends.south), strict=True)
    shown = ", ".join(
        f"{words.end_word(end)} {number}" for end, number in named if number is not None
    )
    return _("{tile} fits no open end ({ends}); playable: {playable}").format(
        tile=tile, ends=shown, playable=", ".join(playable)
    )


def _pass(view: RoomView | None) -> Action:
    checked = _playing(view)
    if isinstance(checked, Refuse):
        return checked
    view, game = checked
    if game.turn != view.you:
        return Refuse(_("it is not your turn"))
    if game.legal != [MoveSpec(pass_=True)]:
        return Refuse(_("you cannot pass while you can play (or draw)"))
    return Send((msg.Pass(),))


def _command(text: str, view: RoomView | None) -> Action:
    word, _space, rest = text[1:].partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return Quit()
    if word in ("help", "h", "?"):
        hosted = view is None or view.host is not None
        return Show("\n".join([_(HELP), *([_(HOST_HELP)] if hosted else []), _(MORE_HELP)]))
    if view is None:
        return Refuse(_("not in a room yet"))
    match word:
        case "scores" | "score":
            return Board("scores")
        case "log":
            return Board("log")
        case "ends":
            return Board("ends")
        case "save":
            if not rest:
                return Refuse(_("write /save FILE (the match record, for allfives replay)"))
            return Save(rest)
        case "bots" | "bot":
            return _bots(rest, view)
        case "start":
            return _host_only(view, "waiting", "start") or _start(view)
        case "chat" | "say":
            return _chat(rest, view)
        case "hint":
            return _hint(view)
        case "rematch":
            return _host_only(view, "finished", "rematch") or Send((msg.Rematch(),))
        case "pass":
            return _pass(view)
        case "link":
            return Send((msg.AskLinkCode(),))
        case "back":
            return _back(view)
    said = _("unknown command /{word}: /help lists the commands")
    return Refuse(said.format(word=cut(word)))


#: What a host-only command does, as "only the host may ..." and "cannot ... while" say it.
HOST_DOINGS = {
    "start": (
        N_("only the host may start the match"),
        N_("cannot start the match while the room is {phase}"),
    ),
    "rematch": (
        N_("only the host may call a rematch"),
        N_("cannot call a rematch while the room is {phase}"),
    ),
    "bots": (
        N_("only the host may add or remove bots"),
        N_("cannot add or remove bots while the room is {phase}"),
    ),
}


def _host_only(view: RoomView, phase: str, doing: str) -> Refuse | None:
    not_host, not_now = HOST_DOINGS[doing]
    if view.you is None or view.you != view.host:
        return Refuse(_(not_host))
    if view.phase != phase:
        return Refuse(_(not_now).format(phase=words.phase_word(view.phase)))
    return None


def _start(view: RoomView) -> Action:
    free = [str(words.seat_number(index)) for index, seat in enumerate(view.seats) if seat is None]
    if free:
        said = _("every seat must be taken first (free: {seats}): /bots fill")
        return Refuse(said.format(seats=", ".join(free)))
    return Send((msg.Start(),))


def _bots(rest: str, view: RoomView) -> Action:
    words = rest.lower().split()
    verb = words[0] if words else ""
    if verb not in ("add", "fill", "remove"):
        return Refuse(_("write /bots add LEVEL, /bots fill LEVEL or /bots remove SEAT"))
    refused = _host_only(view, "waiting", "bots")
    if refused is not None:
        return refused
    free = [index for index, seat in enumerate(view.seats) if seat is None]
    if verb == "remove":
        return _remove_bot(words[1:], view)
    level = words[1] if len(words) > 1 else "normal"
    if level not in BOT_LEVELS:
        return Refuse(_("no bot level {level}: easy, normal or hard").format(level=echoed(level)))
    if not free:
        return Refuse(_("every seat is taken"))
    count = len(free) if verb == "fill" else 1
    return Send(tuple(msg.AddBot(level=level) for _seat in range(count)))


def _remove_bot(typed: list[str], view: RoomView) -> Action:
    bots = [
        index for index, seat in enumerate(view.seats) if seat is not None and seat.kind == "bot"
    ]
    if not typed or not typed[0].isdigit():
        listed = ", ".join(str(words.seat_number(seat)) for seat in bots) or _("none")
        return Refuse(_("write /bots remove SEAT (seats with bots: {seats})").format(seats=listed))
    # The seat as the table numbers it (from 1); the wire's seat is one less.
    number = int(typed[0]) if len(typed[0]) <= ECHOED else 0  # no seat has a longer number
    seat = words.seat_index(number)
    if seat not in bots:
        return Refuse(_("seat {seat} holds no bot").format(seat=cut(typed[0].lstrip("0") or "0")))
    return Send((msg.RemoveBot(seat=seat),))


def _chat(text: str, view: RoomView) -> Action:
    try:
        cleaned = msg.validate_chat(text)
    except ValueError:
        return Refuse(words.chat_problem(text))
    return Send((msg.Chat(text=cleaned),))


def _back(view: RoomView) -> Action:
    seat = view.seats[view.you] if view.you is not None else None
    if view.phase != "playing" or seat is None or not seat.stand_in:
        return Refuse(_("no stand-in plays for you: the seat is yours"))
    return Send((msg.Back(),))


def _hint(view: RoomView) -> Action:
    checked = _playing(view)
    if isinstance(checked, Refuse):
        return checked
    view, game = checked
    if game.turn != view.you:
        return Refuse(_("a hint is for your own turn"))
    return Send((msg.Hint(),))
