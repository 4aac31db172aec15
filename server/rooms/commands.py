"""Every command that changes a room, dispatched to `Room`'s methods: `handle(room, caller, command)`.

A command is a client's room message or one the server gives itself
(`server.rooms.server_commands`: a seat resumed, a connection gone, a bot's move, ratings...).
Each handler checks what only the command knows (who may send it, what it names), calls the
room's method, and notes in the `Outcome` its public events and its effects (typed, in order:
the sender seated or gone, a player removed, replies), which the room in play
(`server.play.live.LiveRoom.run`) carries out the same way for every command. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bridge import convert
from bridge.positions import positions_of
from engine import PASS
from protocol import errors
from protocol import messages as msg
from server.rooms import codes, results
from server.rooms.room_state import (
    Caller,
    CatchUp,
    Document,
    HintAsked,
    Left,
    Outcome,
    Removed,
    Reply,
    RoomError,
    Seated,
)
from server.rooms.server_commands import (
    BotMove,
    Connect,
    Depart,
    Disconnect,
    DropLinks,
    OpenTable,
    ReleaseAway,
    Resume,
    ServerCommand,
    SetRatings,
    Watch,
)

if TYPE_CHECKING:
    from server.rooms.room import Room


#: Whatever changes a room: a client's room message, or the server's own command.
Command = msg.ClientMessage | ServerCommand


def handle(room: Room, caller: Caller, command: Command, now: float = 0.0) -> Outcome:
    """Apply one command for `caller`; RoomError (nothing changed) if it is refused."""
    outcome = Outcome()
    handler = _HANDLERS.get(type(command))
    if handler is None:
        assert isinstance(command, msg.ClientMessage)
        raise RoomError(errors.INVALID, f"{msg.type_of(command)} is not a room command")
    seq = room.seq
    handler(room, caller, command, now, outcome)
    outcome.changed = room.seq != seq
    if not outcome.changed or not isinstance(command, msg.ClientMessage) or command.id is None:
        return outcome
    answered = any(
        isinstance(effect, Reply) and getattr(effect.message, "id", None) is not None
        for effect in outcome.effects
    )
    if not answered:
        outcome.effects.append(Reply(msg.Ack(id=command.id)))
    return outcome


def _join(room: Room, caller: Caller, message: msg.Join, now: float, out: Outcome) -> None:
    if caller.seat is not None:
        raise RoomError(
            errors.INVALID, f"you already sit at seat {caller.seat} here", errors.ALREADY_SEATED
        )
    if message.seat is not None and message.seat >= room.rules.players:
        # The answer a room that does not exist gives: no probing for rooms by seat.
        raise RoomError(errors.NO_SUCH_ROOM, codes.missing(message.room))
    # A key's player sits under its own name; a guest may name the seat.
    name = caller.name if caller.player is not None else message.name or caller.name
    # One change, one seq: a spectator sitting down stops watching in the same change.
    seat, token = room.sit(
        name, message.seat, now, caller.process, caller.player, watching=caller.spectating
    )
    joined = msg.Joined(room=room.join_code, seat=seat, seat_token=token, id=message.id)
    out.effects += [Seated(seat), Reply(joined), Document()]


def _spectate(room: Room, caller: Caller, message: msg.Spectate, now: float, out: Outcome) -> None:
    if caller.seat is not None or caller.spectating:
        raise RoomError(errors.INVALID, "you are already in this room", errors.ALREADY_HERE)
    room.watch(+1, now, caller.process)
    joined = msg.Joined(room=room.join_code, seat=None, seat_token=None, id=message.id)
    out.effects += [Seated(None), Reply(joined), Document()]


def _leave(room: Room, caller: Caller, message: msg.Leave, now: float, out: Outcome) -> None:
    if caller.seat is not None:
        room.leave(caller.seat, now)
    elif caller.spectating:
        room.watch(-1, now, caller.process)
    else:
        raise RoomError(errors.NOT_IN_ROOM, "you are not in a room")
    out.effects.append(Left())


def _back(room: Room, caller: Caller, message: msg.Back, now: float, out: Outcome) -> None:
    room.back(caller.seat, now)


def _add_bot(room: Room, caller: Caller, message: msg.AddBot, now: float, out: Outcome) -> None:
    room.add_bot(caller.seat, message.seat, message.level, now)


def _remove_bot(
    room: Room, caller: Caller, message: msg.RemoveBot, now: float, out: Outcome
) -> None:
    room.remove_bot(caller.seat, message.seat, now)


def _remove_player(
    room: Room, caller: Caller, message: msg.RemovePlayer, now: float, out: Outcome
) -> None:
    room.remove_player(caller.seat, message.seat, now)
    out.effects.append(Removed(message.seat))


def _start(room: Room, caller: Caller, message: msg.Start, now: float, out: Outcome) -> None:
    out.events = room.start(caller.seat, now)


def _play(room: Room, caller: Caller, message: msg.Play, now: float, out: Outcome) -> None:
    move = convert.move_of(message.tile, message.end)
    out.events = room.play(caller.seat, move, now)


def _pass(room: Room, caller: Caller, message: msg.Pass, now: float, out: Outcome) -> None:
    out.events = room.play(caller.seat, PASS, now)


def _hint(room: Room, caller: Caller, message: msg.Hint, now: float, out: Outcome) -> None:
    out.effects.append(HintAsked(room.hint_view(caller.seat)))


def _rematch(room: Room, caller: Caller, message: msg.Rematch, now: float, out: Outcome) -> None:
    room.rematch(caller.seat, now)


def _chat(room: Room, caller: Caller, message: msg.Chat, now: float, out: Outcome) -> None:
    if caller.seat is None and not caller.spectating:
        raise RoomError(errors.NOT_IN_ROOM, "join or watch a room to chat")
    if caller.seat is None and not room.rules.spectators_chat:
        raise RoomError(
            errors.INVALID, "spectators may not chat in this room", errors.SPECTATORS_SILENT
        )
    if caller.seat is not None and message.id is not None and room.said(caller.seat, message.id):
        out.effects.append(Reply(msg.Ack(id=message.id)))  # sent again (its ack was lost)
        return
    out.events = [room.say(caller.seat, caller.name, message.text, now, message.id)]


def _resync(room: Room, caller: Caller, message: msg.Resync, now: float, out: Outcome) -> None:
    out.effects.append(Document(message.id))


def _record(room: Room, caller: Caller, message: msg.GetRecord, now: float, out: Outcome) -> None:
    record = results.finished_record(room)
    reply = msg.RecordReply(record=record, positions=positions_of(record), id=message.id)
    out.effects.append(Reply(reply))


# -- the server's own commands ---------------------------------------------------------------


def _resume(room: Room, caller: Caller, command: Resume, now: float, out: Outcome) -> None:
    seat = room.seat_of_token(command.token)
    if seat is None:
        raise RoomError(errors.BAD_TOKEN, codes.no_seat(room.code))
    room.connect(seat, now, caller.process)
    joined = msg.Joined(room=room.join_code, seat=seat, seat_token=command.token, id=command.id)
    out.effects += [Seated(seat), Reply(joined), CatchUp(command.last_seq)]


def _open_table(room: Room, caller: Caller, command: OpenTable, now: float, out: Outcome) -> None:
    out.events = room.open_table(command.of, command.sitters, now)


def _connect(room: Room, caller: Caller, command: Connect, now: float, out: Outcome) -> None:
    room.connect(command.seat, now, caller.process)


def _disconnect(room: Room, caller: Caller, command: Disconnect, now: float, out: Outcome) -> None:
    room.disconnect(command.seat, now, caller.process)


def _watch(room: Room, caller: Caller, command: Watch, now: float, out: Outcome) -> None:
    room.watch(command.delta, now, caller.process)


def _depart(room: Room, caller: Caller, command: Depart, now: float, out: Outcome) -> None:
    if caller.seat is not None:
        if command.disconnected:
            room.disconnect(caller.seat, now, caller.process)
        else:
            room.leave(caller.seat, now)
    elif caller.spectating:
        room.watch(-1, now, caller.process)


def _bot_move(room: Room, caller: Caller, command: BotMove, now: float, out: Outcome) -> None:
    out.events = room.bot_play(command.turn, command.move, now) or []


def _set_ratings(room: Room, caller: Caller, command: SetRatings, now: float, out: Outcome) -> None:
    room.set_ratings(command.match, command.changes, now, command.game_id)


def _release_away(
    room: Room, caller: Caller, command: ReleaseAway, now: float, out: Outcome
) -> None:
    room.release_away(now, command.after)


def _drop_links(room: Room, caller: Caller, command: DropLinks, now: float, out: Outcome) -> None:
    room.drop_links(command.dead, now)


_HANDLERS: dict[type[Command], Callable[..., None]] = {
    msg.Join: _join,
    msg.Spectate: _spectate,
    msg.Leave: _leave,
    msg.Back: _back,
    msg.AddBot: _add_bot,
    msg.RemoveBot: _remove_bot,
    msg.RemovePlayer: _remove_player,
    msg.Start: _start,
    msg.Play: _play,
    msg.Pass: _pass,
    msg.Hint: _hint,
    msg.Rematch: _rematch,
    msg.Chat: _chat,
    msg.Resync: _resync,
    msg.GetRecord: _record,
    Resume: _resume,
    OpenTable: _open_table,
    Connect: _connect,
    Disconnect: _disconnect,
    Watch: _watch,
    Depart: _depart,
    BotMove: _bot_move,
    SetRatings: _set_ratings,
    ReleaseAway: _release_away,
    DropLinks: _drop_links,
}
