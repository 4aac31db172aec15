"""Nobody squats a waiting room: seats of players gone are released, the host removes players and
passes on when leaving."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from server_helpers import fast_config
from websockets.exceptions import ConnectionClosed
from ws_client_helpers import Client, play_out, seat_players, until_holds

from protocol import messages as msg
from server.app import run_server


def away(seat: int) -> Callable[[dict[str, Any]], bool]:
    """A test of a document: the seat is held by a player who is not connected."""
    return lambda d: d["seats"][seat] is not None and not d["seats"][seat]["connected"]


async def host_alone(url: str, players: int) -> Client:
    """A public waiting room with its host alone in seat 0."""
    host = await Client.open(url, "Host")
    assert isinstance(await host.request("create_room", rules={"players": players}), msg.Joined)
    await host.until(lambda m: isinstance(m, msg.Snapshot))
    return host


async def test_the_seats_of_players_gone_from_a_waiting_room_are_released() -> None:
    config = fast_config(release_seconds=0.3, sweep_seconds=0.05)
    async with run_server(config) as server:
        host = await host_alone(server.url, 3)
        squatters = [await Client.open(server.url, f"Squat{index}") for index in range(2)]
        for squatter in squatters:
            assert isinstance(await squatter.request("join", room=host.room), msg.Joined)
        friend = await Client.open(server.url, "Friend")
        assert (await friend.error_for("join", room=host.room)).code == "room_full"
        await until_holds(host, lambda d: None not in d["seats"])
        for squatter in squatters:
            await squatter.close()
        await until_holds(host, lambda d: d["seats"][1] is None and d["seats"][2] is None)
        assert isinstance(await friend.request("join", room=host.room), msg.Joined)
        # The squatter's token no longer holds a seat.
        back = await Client.open(server.url, "Squat0", hello=False)
        await back.send(
            "hello",
            version=msg.PROTOCOL_VERSION,
            name="Squat0",
            token=squatters[0].token,
            room=host.room,
        )
        await back.until(lambda m: isinstance(m, msg.Welcome))
        error = await back.receive()
        assert isinstance(error, msg.Error) and error.code == "bad_token"


async def test_a_player_back_in_time_keeps_the_seat() -> None:
    config = fast_config(release_seconds=0.3, sweep_seconds=0.05)
    async with run_server(config) as server:
        host, guest, squatter = await seat_players(server.url, 3, 3)
        await guest.close()
        await until_holds(host, away(1))
        back = await Client.open(server.url, "P1", token=guest.token, room=host.room)
        await squatter.close()
        await until_holds(host, lambda d: d["seats"][2] is None)
        assert host.document["seats"][1]["name"] == "P1"
        assert isinstance(await back.request("chat", text="still mine"), msg.Ack)


async def test_the_host_removes_a_player_before_the_start() -> None:
    async with run_server(fast_config()) as server:
        host, guest, other = await seat_players(server.url, 3, 3)
        assert (await guest.error_for("remove_player", seat=2)).code == "not_host"
        assert (await host.error_for("remove_player", seat=0)).code == "invalid"
        assert isinstance(await host.request("remove_player", seat=1), msg.Ack)
        assert host.document["seats"][1] is None
        try:
            while True:
                await guest.receive(5.0)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 4002
        await until_holds(other, lambda d: d["seats"][1] is None)
        newcomer = await Client.open(server.url, "New")
        joined = await newcomer.request("join", room=host.room, seat=1)
        assert isinstance(joined, msg.Joined) and joined.seat == 1
        await host.request("start")
        assert (await host.error_for("remove_player", seat=1)).code == "wrong_phase"


async def test_the_host_who_drops_passes_the_room_to_the_next_connected_player() -> None:
    async with run_server(fast_config(release_seconds=0.3, sweep_seconds=0.05)) as server:
        host, gone, next_up, last = await seat_players(server.url, 4, 4)
        await gone.close()
        await until_holds(last, away(1))
        await host.close()
        await until_holds(last, lambda d: d["host"] == 2)
        assert last.document["seats"][:2] == [None, None]
        assert (await last.error_for("start")).code == "not_host"
        assert isinstance(await next_up.request("add_bot", seat=0), msg.Ack)
        assert isinstance(await next_up.request("add_bot", seat=1), msg.Ack)
        assert isinstance(await next_up.request("start"), msg.Ack)


async def test_a_host_who_leaves_passes_at_once_and_one_who_blips_stays_host() -> None:
    async with run_server(fast_config(release_seconds=600.0)) as server:
        host, guest, _ = await seat_players(server.url, 3, 3)
        await host.close()
        back = await Client.open(server.url, "P0", token=host.token, room=host.room)
        await back.until(lambda m: isinstance(m, msg.Joined))
        assert isinstance(await back.request("remove_player", seat=2), msg.Ack)
        assert isinstance(await back.request("leave"), msg.Ack)
        await until_holds(guest, lambda d: d["host"] == 1 and d["seats"][0] is None)
        assert isinstance(await guest.request("add_bot"), msg.Ack)


async def test_after_a_match_a_host_gone_for_good_passes_the_rematch_on() -> None:
    async with run_server(fast_config(release_seconds=0.3, sweep_seconds=0.05)) as server:
        host, guest = await seat_players(server.url, 2, 2, target=5)
        await host.request("start")
        await asyncio.gather(play_out(host, random.Random(1)), play_out(guest, random.Random(2)))
        assert (await guest.error_for("rematch")).code == "not_host"
        await host.close()
        await until_holds(guest, lambda d: d["host"] == 1)
        assert guest.document["seats"][0] is not None  # a finished room keeps the seat
        assert isinstance(await guest.request("rematch"), msg.Ack)


async def test_a_spectator_who_sits_down_is_one_change_for_everyone() -> None:
    """The seat taken and the spectator gone in one change: the room's players see the next
    `seq`, not a gap (which made every client in the room ask for a snapshot)."""
    async with run_server(fast_config()) as server:
        host = await Client.open(server.url, "Ann")
        joined = await host.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined)
        await host.until(lambda m: isinstance(m, msg.Snapshot))
        bea = await Client.open(server.url, "Bea")
        assert isinstance(await bea.request("spectate", room=host.room), msg.Joined)
        await bea.until(lambda m: isinstance(m, msg.Snapshot))
        await host.until(lambda m: isinstance(m, msg.Patch))  # a spectator came
        before = host.state.seq
        assert before is not None
        seqs = [before]
        assert isinstance(await bea.request("join", room=host.room), msg.Joined)
        message = await host.until(lambda m: isinstance(m, msg.Patch))
        assert isinstance(message, msg.Patch)
        seqs.append(message.seq)
        assert seqs[1] == seqs[0] + 1, seqs
        assert [seat["name"] for seat in host.document["seats"] if seat] == ["Ann", "Bea"]
        assert host.document["spectators"] == 0
        await bea.close()
        await host.close()
