"""Private rooms cannot be found: long codes, a budget of failed lookups, one answer for all misses."""

from __future__ import annotations

import json

import pytest
from cluster_helpers import cluster_config
from hypothesis import given
from hypothesis import strategies as st
from redis_server import RedisServer
from server_helpers import fast_config
from waiting import until
from websockets.asyncio.client import connect
from ws_client_helpers import Client

from protocol import messages as msg
from server.app import run_server
from server.edge.limits import LookupBudget
from server.rooms import codes


async def test_a_private_room_is_found_only_with_its_invite() -> None:
    async with run_server(fast_config()) as server:
        shy = await Client.open(server.url, "Shy")
        await shy.request("create_room", rules={"players": 3, "public": False})
        bold = await Client.open(server.url, "Bold")
        await bold.request("create_room", rules={"players": 2})
        await shy.until(lambda m: isinstance(m, msg.Snapshot))
        assert shy.room is not None and bold.room is not None
        code, invite = shy.room.split("-")
        assert len(code) == 4 and len(invite) == 10 and set(code + invite) <= set(codes.ALPHABET)
        assert len(bold.room) == 4  # a public room needs no invite: it is listed anyway
        # The table shows the short code; the invite is in no document.
        assert shy.document["code"] == code and invite not in json.dumps(shy.document)
        friend = await Client.open(server.url, "Friend")
        for wrong in [code, f"{code}-{'B' * 10}", f"{code}-{invite[:-1]}"]:
            error = await friend.error_for("join", room=wrong)
            assert error.code == "no_such_room"
            assert (await friend.error_for("spectate", room=wrong)).code == "no_such_room"
        grouped = "-".join((shy.room.replace("-", ""))[i : i + 4] for i in range(0, 14, 4))
        joined = await friend.request("join", room=grouped.lower())
        assert isinstance(joined, msg.Joined) and joined.room == shy.room
        fan = await Client.open(server.url, "Fan")
        assert isinstance(await fan.request("spectate", room=shy.room), msg.Joined)
        back = await Client.open(server.url, "Friend", token=friend.token, room=shy.room)
        resumed = await back.until(lambda m: isinstance(m, msg.Joined | msg.Error))
        assert isinstance(resumed, msg.Joined) and resumed.room == shy.room


async def test_a_seat_out_of_range_gets_the_answer_of_a_room_that_does_not_exist() -> None:
    async with run_server(fast_config()) as server:
        host = await Client.open(server.url, "Host")
        await host.request("create_room", rules={"players": 2})
        assert host.room is not None
        await host.until(lambda m: isinstance(m, msg.Snapshot))
        prober = await Client.open(server.url, "Probe")
        there = await prober.error_for("join", room=host.room, seat=3)
        missing = "ZZZZ" if host.room != "ZZZZ" else "XXXX"
        not_there = await prober.error_for("join", room=missing, seat=3)
        assert there.code == not_there.code == "no_such_room"
        assert there.message.replace(host.room, missing) == not_there.message
        assert [seat is None for seat in host.document["seats"]] == [False, True]


async def test_failed_lookups_run_out_then_every_lookup_is_rate_limited() -> None:
    config = fast_config(lookup_burst=5, lookups_per_minute=0.5, trust_proxy=True)
    async with run_server(config) as server:
        host = await Client.open(server.url, "Host")
        await host.request("create_room", rules={"players": 4, "public": False})
        assert host.room is not None
        guesser = Client(
            await connect(server.url, additional_headers={"X-Real-IP": "198.51.100.7"}), "Guess"
        )
        await guesser.request("hello", version=msg.PROTOCOL_VERSION, name="Guess")
        answers = []
        code = host.room.split("-")[0]
        for guess in ["BCDFBCDFBCDFBC", "BCDF-BCDF-BCDF-BG", code, f"{code}-ZZZZZZZZZZ", "XXXX"]:
            answers.append((await guesser.error_for("spectate", room=guess)).code)
        assert answers == ["no_such_room"] * 5
        # The budget is spent: the room that exists gets the same answer as one that does not.
        right = await guesser.error_for("join", room=host.room)
        wrong = await guesser.error_for("join", room="BCDF-BCDFBCDFBH")
        assert right.code == wrong.code == "rate_limited"
        assert "try again in" in right.message
        # Another address (here: the host's) still finds the room.
        friend = await Client.open(server.url, "Friend")
        assert isinstance(await friend.request("join", room=host.room), msg.Joined)


def test_guessing_a_private_code_takes_longer_than_any_attacker_waits() -> None:
    year = 365 * 24 * 3600
    # 10,000 private rooms open, 10,000 addresses each guessing at the default budget.
    letters = codes.CODE_LENGTH + codes.INVITE_LENGTH
    seconds = codes.guessing_seconds(10_000, 10_000, 10.0, letters)
    assert seconds > 1_000 * year
    # The old 4-letter codes fell in minutes to one address without a budget.
    assert codes.guessing_seconds(25, 1, 14_439, 4) < 60


@pytest.mark.parametrize("typed", ["bcdf-ghjk-mnpq-rs", "BCDF GHJK MNPQ RS", "BcDf-GhJkMnPqRs"])
def test_a_room_is_read_in_any_case_with_dashes_or_spaces(typed: str) -> None:
    assert codes.split(typed) == ("BCDF", "GHJKMNPQRS")


def test_an_ipv6_guesser_spends_one_budget_for_its_whole_network() -> None:
    budget = LookupBudget(burst=2, per_minute=1.0)
    budget.charge("2001:db8:1:2::10", 0.0)
    budget.charge("2001:db8:1:2:ffff::99", 0.0)
    assert budget.wait("2001:db8:1:2::77", 0.0) > 0
    assert budget.wait("2001:db8:1:3::10", 0.0) == 0
    assert budget.wait("2001:db8:1:2::77", 60.0) == 0


@given(
    st.text(codes.ALPHABET, min_size=4, max_size=4),
    st.text(codes.ALPHABET, min_size=10, max_size=10),
    st.lists(st.sampled_from(["", "-", " "]), min_size=14, max_size=14),
    st.lists(st.booleans(), min_size=14, max_size=14),
)
def test_a_room_as_read_out_is_split_into_its_code_and_invite(
    code: str, invite: str, separators: list[str], lower: list[bool]
) -> None:
    letters = [c.lower() if low else c for c, low in zip(code + invite, lower, strict=True)]
    typed = "".join(sep + letter for sep, letter in zip(separators, letters, strict=True))
    assert codes.split(typed) == (code, invite)
    assert codes.split(codes.handle(code, invite)) == (code, invite)
    assert codes.split(code) == (code, "")


@given(st.text(min_size=1, max_size=20))
def test_no_name_that_reads_as_a_bots_is_accepted(rest: str) -> None:
    for prefix in ["bot:", "Bot:", "BOT :", "ｂｏｔ：", " bot: "]:
        with pytest.raises(ValueError):
            msg.validate_name(prefix + rest)


@pytest.mark.redis
async def test_lookups_in_flight_at_once_cannot_overspend_the_budget(
    redis_server: RedisServer,
) -> None:
    # With Redis a lookup waits for the store: every one in flight must hold its token already.
    config = cluster_config(redis_server, lookup_burst=5, lookups_per_minute=0.001)
    async with run_server(config) as server:
        guessers = [await Client.open(server.url, f"G{n}") for n in range(16)]
        ids = [await g.send("join", room=f"ZZZ{codes.ALPHABET[n]}") for n, g in enumerate(guessers)]
        answers = [await g.until(lambda m: isinstance(m, msg.Error)) for g in guessers]
        assert [a.id for a in answers] == ids  # type: ignore[union-attr]
        found = sorted(getattr(a, "code", "?") for a in answers)
        assert found == ["no_such_room"] * 5 + ["rate_limited"] * 11, found


async def test_the_room_list_is_paged_and_built_only_when_it_changed() -> None:
    config = fast_config(
        max_connections_per_ip=100, max_rooms_per_ip=100, rooms_burst=100, list_seconds=60.0
    )
    async with run_server(config) as server:
        hosts = []
        for n in range(msg.ROOMS_PAGE + 7):
            host = await Client.open(server.url, f"H{n}")
            assert isinstance(await host.request("create_room", rules={"players": 2}), msg.Joined)
            hosts.append(host)
        gone = hosts.pop()
        await gone.close()  # an empty room is not listed
        await until(lambda: server.rooms[gone.room or ""].room.is_empty())
        reader = await Client.open(server.url, "Reader")
        first = await reader.request("list_rooms")
        assert isinstance(first, msg.Rooms)
        assert (len(first.rooms), first.offset, first.total) == (msg.ROOMS_PAGE, 0, 56)
        second = await reader.request("list_rooms", offset=msg.ROOMS_PAGE)
        assert isinstance(second, msg.Rooms) and len(second.rooms) == 6
        listed = {room.code for room in first.rooms + second.rooms}
        assert listed == {host.room for host in hosts}
        assert gone.room not in listed
        # Built once for both answers, and kept while no listed room changes.
        assert server.listing.builds == 1
        late = await Client.open(server.url, "Late")
        await late.request("create_room", rules={"players": 2})
        again = await reader.request("list_rooms")
        assert isinstance(again, msg.Rooms) and again.total == 57
        assert isinstance(await reader.request("list_rooms"), msg.Rooms)
        assert server.listing.builds == 2
        error = await reader.error_for("list_rooms", offset=msg.MAX_ROOMS_OFFSET + 1)
        assert error.code == "invalid"


async def test_one_address_may_ask_for_the_room_list_only_so_often() -> None:
    async with run_server(fast_config(list_burst=3, lists_per_second=0.01)) as server:
        readers = [await Client.open(server.url, f"R{n}") for n in range(2)]
        answers = [await readers[n % 2].request("list_rooms") for n in range(5)]
        kinds = [getattr(a, "code", "rooms") for a in answers]
        assert kinds == ["rooms"] * 3 + ["rate_limited"] * 2  # counted per address, not socket
