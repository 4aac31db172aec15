"""Private rooms cannot be found: long codes, a budget of failed lookups, one answer for all misses."""

from __future__ import annotations

import pytest
from server_helpers import Client
from test_server_play import fast_config
from websockets.asyncio.client import connect

from protocol import messages as msg
from server import codes
from server.app import run_server
from server.limits import LookupBudget


async def test_a_private_room_has_a_long_code_and_a_public_one_a_short_code() -> None:
    async with run_server(fast_config()) as server:
        shy = await Client.open(server.url, "Shy")
        await shy.request("create_room", rules={"players": 2, "public": False})
        bold = await Client.open(server.url, "Bold")
        await bold.request("create_room", rules={"players": 2})
        assert shy.room is not None and bold.room is not None
        assert len(shy.room) == codes.PRIVATE_LENGTH == 14
        assert len(bold.room) == codes.PUBLIC_LENGTH == 4
        assert set(shy.room + bold.room) <= set(codes.ALPHABET)
        friend = await Client.open(server.url, "Friend")
        grouped = "-".join(shy.room[i : i + 4] for i in range(0, 14, 4)).lower()
        joined = await friend.request("join", room=grouped)
        assert isinstance(joined, msg.Joined) and joined.room == shy.room


async def test_a_seat_out_of_range_gets_the_answer_of_a_room_that_does_not_exist() -> None:
    async with run_server(fast_config()) as server:
        host = await Client.open(server.url, "Host")
        await host.request("create_room", rules={"players": 2, "public": False})
        assert host.room is not None
        await host.until(lambda m: isinstance(m, msg.Snapshot))
        prober = await Client.open(server.url, "Probe")
        there = await prober.error_for("join", room=host.room, seat=3)
        missing = "Z" * len(host.room)
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
        for guess in ["BCDFBCDFBCDFBC", "BCDF-BCDF-BCDF-BG", "QQQQ", "ZZZZ", "XXXX"]:
            answers.append((await guesser.error_for("spectate", room=guess)).code)
        assert answers == ["no_such_room"] * 5
        # The budget is spent: the room that exists gets the same answer as one that does not.
        right = await guesser.error_for("join", room=host.room)
        wrong = await guesser.error_for("join", room="BCDFBCDFBCDFBH")
        assert right.code == wrong.code == "rate_limited"
        assert "try again in" in right.message
        # Another address (here: the host's) still finds the room.
        friend = await Client.open(server.url, "Friend")
        assert isinstance(await friend.request("join", room=host.room), msg.Joined)


def test_guessing_a_private_code_takes_longer_than_any_attacker_waits() -> None:
    year = 365 * 24 * 3600
    # 10,000 private rooms open, 10,000 addresses each guessing at the default budget.
    seconds = codes.guessing_seconds(10_000, 10_000, 10.0, codes.PRIVATE_LENGTH)
    assert seconds > 1_000 * year
    # The old 4-letter codes fell in minutes to one address without a budget.
    assert codes.guessing_seconds(25, 1, 14_439, 4) < 60


@pytest.mark.parametrize("typed", ["bcdf-ghjk-mnpq-rs", "BCDF GHJK MNPQ RS", "BcDfGhJkMnPqRs"])
def test_a_code_is_read_in_any_case_with_dashes_or_spaces(typed: str) -> None:
    assert codes.normalise(typed) == "BCDFGHJKMNPQRS"


def test_an_ipv6_guesser_spends_one_budget_for_its_whole_network() -> None:
    budget = LookupBudget(burst=2, per_minute=1.0)
    budget.charge("2001:db8:1:2::10", 0.0)
    budget.charge("2001:db8:1:2:ffff::99", 0.0)
    assert budget.wait("2001:db8:1:2::77", 0.0) > 0
    assert budget.wait("2001:db8:1:3::10", 0.0) == 0
    assert budget.wait("2001:db8:1:2::77", 60.0) == 0
