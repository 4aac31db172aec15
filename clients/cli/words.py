"""The game's words in the player's language: ends, bot levels, seats and sides, events, errors.

The wire is language-neutral (event types, numbers, error codes); this module words it through
the catalogs (`clients.cli.i18n`), so the log, the notices and the summaries read alike in every
language. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from clients.cli.i18n import N_, _, language, ngettext
from protocol import messages as msg
from protocol.names import BOT_LIKE
from protocol.names import name_problem as unreadable
from protocol.views import (
    AnyEvent,
    ChatLine,
    Drew,
    HandEnded,
    HandStarted,
    MatchEnded,
    MoveSpec,
    Passed,
    Played,
    Winner,
)

#: An end's name as shown (the letter typed stays n/s/e/w in every language).
END_WORDS = {"north": N_("north"), "south": N_("south"), "east": N_("east"), "west": N_("west")}
#: A bot level as shown (typed in English: easy, normal, hard).
LEVEL_WORDS = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}
#: A room's phase as shown.
PHASE_WORDS = {"waiting": N_("waiting"), "playing": N_("playing"), "finished": N_("finished")}
#: What a refused command was, by the server's error code (the server's English only for
#: a code this client does not know).
ERROR_WORDS = {
    "bad_json": N_("the server could not read what this client sent"),
    "unknown_type": N_("the server does not know that request"),
    "invalid": N_("the server found that request invalid"),
    "bad_version": N_("this client and the server speak different protocol versions"),
    "not_your_turn": N_("it is not your turn"),
    "illegal_move": N_("that move breaks the rules"),
    "room_full": N_("the room has no free seat"),
    "no_such_room": N_("there is no such room (a code is 4 letters)"),
    "bad_token": N_("that seat is no longer yours"),
    "rate_limited": N_("too many messages at once: slow down a little"),
    "too_large": N_("that message is too long"),
    "not_host": N_("only the host may do that"),
    "not_in_room": N_("you are not in a room: join or create one first"),
    "wrong_phase": N_("that cannot be done at this point of the match"),
    "unavailable": N_("the server cannot do that now: nothing was changed, try again soon"),
    "busy": N_("the server is busy: try again soon"),
    "name_taken": N_(
        "that name belongs to another player on this server: choose another; if it is yours, "
        "link this device (/link on one of yours) or restore it with your recovery code "
        "(allfives key URL --restore CODE)"
    ),
    "bad_link": N_("that link code is unknown, used already or expired"),
    "not_a_player": N_("this device is no player on this server yet: play a match here first"),
}
#: The rated bot players of the ladders, as shown.
BOT_PLAYER_WORDS = {
    "bot:easy": N_("easy bot"),
    "bot:normal": N_("normal bot"),
    "bot:hard": N_("hard bot"),
}
#: The ladders, as their titles say them.
LADDER_WORDS = {
    "2p": N_("Two players"),
    "3p": N_("Three players"),
    "teams": N_("Partnerships"),
}
#: What an error's reason means (protocol.errors.REASONS), worded before its code.
REASON_WORDS = {
    "name_taken": N_("someone at this table already goes by that name: choose another"),
    "bad_recovery": N_(
        "that recovery code is not one of this server's (or a newer one replaced it)"
    ),
    "seat_taken": N_("that seat is taken"),
    "no_such_seat": N_("the room has no seat with that number"),
    "already_seated": N_("you already sit at a seat here"),
    "already_here": N_("you are in this room already"),
    "spectators_silent": N_("spectators may not chat in this room"),
    "seats_free": N_("every seat must be taken first"),
    "no_bot": N_("that seat holds no bot"),
    "seat_free": N_("that seat is free already"),
    "own_seat": N_("to give up your own seat, leave"),
    "too_few_entrants": N_(
        "too few entrants to start it: at least as many as a table seats (with fixed partners, "
        "an even number)"
    ),
    "tournaments_a_day": N_(
        "this address has made as many tournaments as the server allows in a day: try again "
        "tomorrow"
    ),
}
#: The command a refused request was, as shown (the wire's type names).
COMMAND_WORDS = {
    "hello": N_("greeting"),
    "create_room": N_("new room"),
    "join": N_("join"),
    "spectate": N_("watch"),
    "leave": N_("leave"),
    "play": N_("play"),
    "pass": N_("pass"),
    "hint": N_("hint"),
    "chat": N_("chat"),
    "start": N_("start"),
    "rematch": N_("rematch"),
    "add_bot": N_("seat a bot"),
    "remove_bot": N_("remove a bot"),
    "record": N_("match record"),
    "link_code": N_("link code"),
    "remove_player": N_("remove a player"),
    "ping": N_("keepalive"),
    "list_rooms": N_("room list"),
    "resync": N_("catching up"),
}


def end_word(end: str | None) -> str:
    """An end's name in the player's language ("" for none)."""
    if end is None:
        return ""
    return _(END_WORDS[end]) if end in END_WORDS else end


def level_word(level: str | None) -> str:
    """A bot level in the player's language."""
    return _(LEVEL_WORDS[level]) if level in LEVEL_WORDS else str(level)


def ladder_word(ladder: str) -> str:
    """A ladder's title ("2p", "3p", "teams") in the player's language."""
    return _(LADDER_WORDS[ladder]) if ladder in LADDER_WORDS else ladder


def rating_figure(rating: float, provisional: bool) -> str:
    """A rating as shown, with the language's decimal mark, "?" after it while provisional (as
    chess servers mark one)."""
    return f"{decimal(rating)}{'?' if provisional else ''}"


def provisional_note() -> str:
    """What the "?" after a rating means (under a ladder or a player's ratings)."""
    return _(
        "? provisional: a player's matches move no one's rating until they have played 5 whole "
        "matches (to 150 points or more; shorter ones count in part) against 3 different "
        "opponents."
    )


def phase_word(phase: str) -> str:
    """A room's phase in the player's language."""
    return _(PHASE_WORDS[phase]) if phase in PHASE_WORDS else phase


def decimal(value: float, places: int = 1) -> str:
    """A number with `places` decimals, with the language's decimal mark ("3.4", Czech "3,4")."""
    written = f"{value:.{places}f}".replace("-", "−")  # a minus sign, as a change's
    return written if language() == "en" else written.replace(".", ",")


def number(value: float) -> str:
    """A count that may be a half ("6.5", Czech "6,5"), written as short as it is."""
    written = f"{value:g}"
    return written if language() == "en" else written.replace(".", ",")


def either(items: Sequence[str]) -> str:
    """ "a, b or c" in the player's language."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return _("{first} or {last}").format(first=", ".join(items[:-1]), last=items[-1])


def both(items: Sequence[str]) -> str:
    """ "a, b and c" in the player's language."""
    if len(items) < 2:
        return "".join(items)
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def seat_number(index: int) -> int:
    """A seat's number as a player reads and types it: seats count from 1 on screen (the
    wire's seat 0 is seat 1), in every language and in both clients."""
    return index + 1


def seat_index(number: int) -> int:
    """The wire's seat for the number a player typed (seat 1 is the wire's 0)."""
    return number - 1


def seat_word(index: int) -> str:
    """A seat by its number: "seat 2" for the wire's seat 1."""
    return _("seat {seat}").format(seat=seat_number(index))


def bot_name(index: int) -> str:
    """A bot's name at the table, its seat's number: "Bot 2" in seat 2 (the wire's 1)."""
    return _("Bot {seat}").format(seat=seat_number(index))


def bot_seat_name(index: int, level: str) -> str:
    """A bot's seat in a finished game (a replay, a review, a list of games): its name at the
    table with its level beside it, "Bot 2 (hard)"."""
    return _("{name} ({level})").format(name=bot_name(index), level=level_word(level))


def bot_level(name: str) -> str | None:
    """The level of a rated bot's name ("bot:hard": "hard"), None for anyone else's."""
    return name.removeprefix("bot:") if name in BOT_PLAYER_WORDS else None


def seat_name(index: int, name: str, bot: bool) -> str:
    """A seat's name as the server sent it; only a bot the server names by its level alone
    (an ordinary room's, "bot:hard") by its seat, "Bot 2". A tournament's bot entrant has a
    name of its own ("bot:hard 1"), shown as sent, as in the standings."""
    return bot_name(index) if bot and bot_level(name) is not None else name


def pips_of(who: str, pips: int | float | str) -> str:
    """A seat's pips with its name after them, "12 (Bot 2)": "Bot 2 12" read as Bot 212."""
    return _("{pips} ({who})").format(pips=pips, who=who)


def table_names(names: Sequence[str]) -> list[str]:
    """A match record's names as the table shows its seats: bots as "Bot 2", a seat with no
    name as free."""
    return [
        bot_name(seat) if bot_level(name) is not None else name or free_seat()
        for seat, name in enumerate(names)
    ]


def free_seat() -> str:
    """A free seat where a name would be."""
    return _("(free)")


def name_of(seat: int, names: Sequence[str]) -> str:
    """A seat's name, or "seat 5" for a seat there is no name for."""
    return names[seat] if 0 <= seat < len(names) else seat_word(seat)


def team_letter(index: int) -> str:
    """A team's letter: A (seats 1 and 3 on screen, the wire's 0 and 2) or B (2 and 4)."""
    return "AB"[index] if index in (0, 1) else str(index)


def team_word(index: int) -> str:
    """ "Team A"."""
    return _("Team {letter}").format(letter=team_letter(index))


def side_of(index: int, names: Sequence[str], teams: bool) -> str:
    """A team ("Team A (Ann & Cid)") when scores are per team, else the seat's name."""
    if not teams:
        return name_of(index, names)
    return _("Team {letter} ({first} & {second})").format(
        letter=team_letter(index), first=name_of(index, names), second=name_of(index + 2, names)
    )


def tiles_word(count: int) -> str:
    """ "3 tiles" with the plural form the count needs."""
    return ngettext("{count} tile", "{count} tiles", count).format(count=count)


def describe(event: AnyEvent, names: Sequence[str], teams: bool = False) -> str:
    """One sentence for an event, e.g. "Ann played 5-3 east: total 15, scores 15"."""
    match event:
        case Played():
            return _describe_play(event, names)
        case Drew(seat=seat, count=count):
            return ngettext("{who} drew {count} tile", "{who} drew {count} tiles", count).format(
                who=name_of(seat, names), count=count
            )
        case Passed(seat=seat):
            return _("{who} passed").format(who=name_of(seat, names))
        case HandEnded():
            return _describe_hand_end(event, names, teams)
        case HandStarted(number=number, leader=leader):
            return _("Hand {number}: {who} leads").format(number=number, who=name_of(leader, names))
        case MatchEnded(winner=winner):
            return describe_winner(winner, names, teams)
        case ChatLine(name=name, text=text):
            return f"{name}: {text}"


def _describe_play(event: Played, names: Sequence[str]) -> str:
    who = name_of(event.seat, names)
    if event.end is None:
        said = _("{who} led {tile}: total {total}")
    else:
        said = _("{who} played {tile} {end}: total {total}")
    line = said.format(who=who, tile=event.tile, end=end_word(event.end), total=event.total)
    if event.points:
        line += _(", scores {points}").format(points=event.points)
    return line


def _describe_hand_end(event: HandEnded, names: Sequence[str], teams: bool) -> str:
    by = name_of(event.by, names) if event.by is not None else "?"
    opening = {
        "domino": _("{who} went out").format(who=by),
        "blocked": _("The hand is blocked"),
        "won": _("{who} reached the target").format(who=by),
    }[event.kind]
    gains = [
        (_("{side} scores {points}") if points > 0 else _("{side} loses {points}")).format(
            side=side_of(index, names, teams), points=abs(points)
        )
        for index, points in enumerate(event.points)
        if points
    ]
    pips = ", ".join(pips_of(name_of(seat, names), count) for seat, count in enumerate(event.pips))
    if event.kind == "won":
        return _("{opening}. Pips left: {pips}").format(opening=opening, pips=pips)
    if not gains:
        return _("{opening}: nobody scores. Pips left: {pips}").format(opening=opening, pips=pips)
    return _("{opening}: {gains}. Pips left: {pips}").format(
        opening=opening, gains=", ".join(gains), pips=pips
    )


def describe_winner(winner: Winner, names: Sequence[str], teams: bool) -> str:
    """Who won the match, in words."""
    if winner is None:
        return _("The match ended without a winner")
    if isinstance(winner, list):
        return _("{names} share the win").format(names=both([name_of(s, names) for s in winner]))
    return _("{side} wins the match").format(side=side_of(winner, names, teams))


def verdict_for(winner: Winner, teams: bool, mine: int | None) -> str:
    """What the match's end means for the player whose side (team, or seat: the room's
    `sides`) is `mine`: "You win.", "You lose.", "Your team wins.", "You share the win."; ""
    for one watching (None) or no winner."""
    if mine is None or winner is None:
        return ""
    if isinstance(winner, list):
        return _("You share the win.") if mine in winner else _("You lose.")
    if winner == mine:
        return _("Your team wins.") if teams else _("You win.")
    return _("Your team loses.") if teams else _("You lose.")


def describe_move(move: MoveSpec) -> str:
    """A suggested move in words: "play 5-3 north", "pass"."""
    if move.pass_ or move.tile is None:
        return _("pass")
    if move.end:
        return _("play {tile} {end}").format(tile=move.tile, end=end_word(move.end))
    return _("play {tile}").format(tile=move.tile)


def error_words(
    code: str, fallback: str, room: str | None = None, reason: str | None = None
) -> str:
    """What a server error means, in the player's language: its reason if this client knows
    it, else its code (`fallback`, the server's own English, for a code this client does not
    know); `room`, the room the request named."""
    if reason in REASON_WORDS:
        return _(REASON_WORDS[reason])
    if code == "no_such_room" and room:
        return _("there is no room {room}").format(room=repr(room))
    return _(ERROR_WORDS[code]) if code in ERROR_WORDS else fallback


def error_text(error: msg.Error) -> str:
    """A server error in words, naming what was refused: "Refused (play): it is not your turn"."""
    said = error_words(error.code, error.message, reason=error.reason)
    if error.command:
        command = COMMAND_WORDS.get(error.command)
        doing = _(command) if command is not None else error.command
        return _("Refused ({command}): {reason}").format(command=doing, reason=said)
    return _("Refused: {reason}").format(reason=said)


def name_problem(name: str) -> str:
    """Why `protocol.messages.validate_name` refused a name, in the player's language."""
    cleaned = name.strip()
    if not cleaned:
        return _("a name cannot be empty")
    if len(cleaned) > msg.MAX_NAME_LENGTH:
        return _("a name has at most {count} characters").format(count=msg.MAX_NAME_LENGTH)
    if not cleaned.isprintable():
        return _("a name may hold only printable characters")
    if unreadable(cleaned) != BOT_LIKE:
        return _("a name may hold only characters a reader can see (no invisible ones)")
    return _('"bot:" starts the names of bots only')


def chat_problem(text: str) -> str:
    """Why `protocol.messages.validate_chat` refused a chat line, in the player's language."""
    cleaned = text.strip()
    if not cleaned:
        return _("a chat line cannot be empty")
    if len(cleaned) > msg.MAX_CHAT_LENGTH:
        return _("a chat line has at most {count} characters").format(count=msg.MAX_CHAT_LENGTH)
    return _("a chat line may hold only printable characters (one line)")
