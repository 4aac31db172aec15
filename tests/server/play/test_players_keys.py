"""Player keys, name claims and link codes against a real server (embedded, and with Redis)."""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from pathlib import Path

import msgspec
import pytest
from protocol_helpers import BOT_LOOK_ALIKES, LOOK_ALIKES, OWNER_NAME
from redis_server import RedisServer
from server_helpers import api_get, fast_config, new_key
from ws_client_helpers import Client, finish_match, until_archived, until_holds

from protocol import errors
from protocol import messages as msg
from protocol.codes import LINK_CODE_SECONDS, normalize_link_code
from protocol.names import name_key
from server.app import Server, run_server
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.asyncio


class Clock:
    """A wall clock the test moves on."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_claimed_name_is_refused_to_other_keys_and_to_guests(running: Server) -> None:
    owner = await Client.open(running.url, "Dee", key=new_key())
    owner_key = new_key()
    again = await Client.open(running.url, "whatever", key=owner_key)
    # A known key plays under its own name, whatever the hello says.
    back = await Client.open(running.url, "Someone Else", hello=False)
    welcome = await back.request(
        "hello", version=msg.PROTOCOL_VERSION, name="Someone Else", key=owner_key
    )
    assert isinstance(welcome, msg.Welcome) and welcome.player == "whatever"
    stranger = await Client.open(running.url, "x", hello=False)
    for name in ("Dee", "dee", "D e e", "Dее"):  # the last with Cyrillic e's
        refused = await stranger.error_for(
            "hello", version=msg.PROTOCOL_VERSION, name=name, key=new_key()
        )
        assert refused.code == errors.NAME_TAKEN, name
        refused = await stranger.error_for("hello", version=msg.PROTOCOL_VERSION, name=name)
        assert refused.code == errors.NAME_TAKEN, name
    # A refused hello changed nothing: the connection may still say hello, as a guest.
    assert isinstance(
        await stranger.request("hello", version=msg.PROTOCOL_VERSION, name="Eve"), msg.Welcome
    )
    # A guest cannot take the name at a table either.
    joined = await owner.request("create_room", rules={"players": 2})
    assert isinstance(joined, msg.Joined)
    refused = await stranger.error_for("join", room=owner.room, name="DEE")
    assert refused.code == errors.NAME_TAKEN
    # A player's seat has the player's name, whatever `join` says.
    seated = await back.request("join", room=owner.room, name="Impostor")
    assert isinstance(seated, msg.Joined)
    await until_holds(back, lambda d: d["seats"][1] is not None)
    assert back.document["seats"][1]["name"] == "whatever"
    for client in (owner, again, back, stranger):
        await client.close()


async def test_a_hello_without_a_name_watches_and_takes_no_seat(running: Server) -> None:
    owner = await Client.open(running.url, "Root", key=new_key())
    assert isinstance(await owner.request("create_room", rules={"players": 2}), msg.Joined)
    watcher = await Client.open(running.url, "", hello=False)
    assert isinstance(await watcher.request("hello", version=msg.PROTOCOL_VERSION), msg.Welcome)
    assert isinstance(await watcher.request("spectate", room=owner.room), msg.Joined)
    for kind, fields in (("join", {"room": owner.room}), ("chat", {"text": "hi"})):
        refused = await watcher.error_for(kind, **fields)
        assert refused.code == errors.INVALID and "without a name" in refused.message
    # A seat takes a name the guest gives, which may not be somebody's.
    assert (await watcher.error_for("join", room=owner.room, name="ROOT")).code == (
        errors.NAME_TAKEN
    )
    sitter = await Client.open(running.url, "", hello=False)
    assert isinstance(await sitter.request("hello", version=msg.PROTOCOL_VERSION), msg.Welcome)
    assert isinstance(await sitter.request("join", room=owner.room, name="Wes"), msg.Joined)
    # A new key claims a name, so it needs one.
    fresh = await Client.open(running.url, "", hello=False)
    refused = await fresh.error_for("hello", version=msg.PROTOCOL_VERSION, key=new_key())
    assert refused.code == errors.INVALID and "claims a name" in refused.message
    for client in (owner, watcher, sitter, fresh):
        await client.close()


async def test_a_bot_name_is_never_claimed(running: Server) -> None:
    client = await Client.open(running.url, "x", hello=False)
    for name in ("bot:hard", "BOT:easy", "ｂｏｔ：normal"):
        refused = await client.error_for(
            "hello", version=msg.PROTOCOL_VERSION, name=name, key=new_key()
        )
        assert refused.code == errors.INVALID
    page = await api_get(running.url, "/api/players/bot:hard")
    assert page.status == 200 and page.json["bot"] and page.json["name"] == "bot:hard"
    await client.close()


async def test_no_look_alike_of_a_claimed_name_or_of_a_bot_gets_in(running: Server) -> None:
    owner = await Client.open(running.url, OWNER_NAME, key=new_key())
    joined = await owner.request("create_room", rules={"players": 4})
    assert isinstance(joined, msg.Joined)
    assert isinstance(await owner.request("add_bot", level="hard"), msg.Ack)
    stranger = await Client.open(running.url, "x", hello=False)
    for name in LOOK_ALIKES + BOT_LOOK_ALIKES:
        for key in (new_key(), None):
            refused = await stranger.error_for(
                "hello", version=msg.PROTOCOL_VERSION, name=name, key=key
            )
            assert refused.code in (errors.NAME_TAKEN, errors.INVALID), ascii(name)
    # Nobody sat down beside the owner and the bot; the ladder and the API know one "Zedjbz".
    assert isinstance(
        await stranger.request("hello", version=msg.PROTOCOL_VERSION, name="Yuri"), msg.Welcome
    )
    for name in LOOK_ALIKES + BOT_LOOK_ALIKES:
        refused = await stranger.error_for("join", room=owner.room, name=name)
        assert refused.code in (errors.NAME_TAKEN, errors.INVALID), ascii(name)
    assert [seat and seat["name"] for seat in owner.document["seats"]] == [
        OWNER_NAME,
        "bot:hard",
        None,
        None,
    ]
    page = await api_get(running.url, "/api/players/" + urllib.parse.quote("Zedjbz\u0301"))
    assert page.status == 200 and page.json["name"] == OWNER_NAME
    for client in (owner, stranger):
        await client.close()


async def resumed_by(
    url: str, owner: Client, name: str, key: str | None = None
) -> msg.AnyServerMessage:
    """What a new connection gets for hello with `owner`'s seat token (and `key`, if any)."""
    client = await Client.open(url, name, hello=False)
    fields: dict[str, object] = {"token": owner.token, "room": owner.room}
    if key is not None:
        fields["key"] = key
    welcome = await client.request("hello", version=msg.PROTOCOL_VERSION, name=name, **fields)
    assert isinstance(welcome, msg.Welcome), welcome
    answer = await client.until(lambda m: isinstance(m, msg.Error | msg.Joined))
    await client.close()
    return answer


async def test_a_name_claimed_after_a_guest_greeted_is_the_claimers_from_then_on(
    running: Server,
) -> None:
    guest = await Client.open(running.url, "Yanjbz")
    seated = await Client.open(running.url, "Yanjbz")
    assert isinstance(await seated.request("create_room", rules={"players": 2}), msg.Joined)
    claimer = await Client.open(running.url, "yanjbz", key=new_key())
    # From the claim on, no room seats the guest under the name, named in join or not.
    host = await Client.open(running.url, "Host")
    assert isinstance(await host.request("create_room", rules={"players": 3}), msg.Joined)
    assert (await guest.error_for("join", room=host.room)).code == errors.NAME_TAKEN
    assert (await guest.error_for("join", room=host.room, name="YANJBZ")).code == (
        errors.NAME_TAKEN
    )
    assert (await guest.error_for("create_room", rules={"players": 2})).code == errors.NAME_TAKEN
    # The guest seated before the claim cannot take the seat back under it either.
    await seated.close()
    answer = await resumed_by(running.url, seated, "Other")
    assert isinstance(answer, msg.Error) and answer.code == errors.NAME_TAKEN, answer
    # Under another name the guest plays on.
    assert isinstance(await guest.request("join", room=host.room, name="Yan"), msg.Joined)
    for client in (guest, claimer, host):
        await client.close()


async def test_a_keys_seat_is_resumed_only_with_that_players_key(running: Server) -> None:
    key = new_key()
    owner = await Client.open(running.url, "Wren", key=key)
    assert isinstance(await owner.request("create_room", rules={"players": 2}), msg.Joined)
    assert isinstance(await owner.request("add_bot", level="easy"), msg.Ack)
    assert isinstance(await owner.request("start"), msg.Ack)
    await until_holds(owner, lambda d: d["phase"] == "playing")
    await owner.close()
    # Mid-match, the seat token alone (a device whose key was dropped, or a thief) is refused,
    # as is another player's key; the owner's key takes the seat back.
    answer = await resumed_by(running.url, owner, "Wren2")
    assert isinstance(answer, msg.Error) and answer.code == errors.BAD_TOKEN, answer
    await Client.open(running.url, "Thief", key=(thief := new_key()))
    answer = await resumed_by(running.url, owner, "Thief", key=thief)
    assert isinstance(answer, msg.Error) and answer.code == errors.BAD_TOKEN, answer
    answer = await resumed_by(running.url, owner, "whatever", key=key)
    assert isinstance(answer, msg.Joined) and answer.seat == 0, answer


async def test_new_keys_from_one_address_at_once_never_pass_the_limit(running: Server) -> None:
    burst = running.config.limits.new_players_burst
    clients = [await Client.open(running.url, "x", hello=False) for _ in range(32)]
    answers = await asyncio.gather(
        *(
            client.request(
                "hello", version=msg.PROTOCOL_VERSION, name=f"Claim{index}", key=new_key()
            )
            for index, client in enumerate(clients)
        )
    )
    welcomed = [answer for answer in answers if isinstance(answer, msg.Welcome)]
    refused = [answer for answer in answers if isinstance(answer, msg.Error)]
    assert len(welcomed) == burst and len(welcomed) + len(refused) == 32
    assert all(answer.code == errors.RATE_LIMITED for answer in refused)
    # Only the players welcomed were made: a refused claim left no player behind.
    made = [await running.ledger.player_named(name_key(f"Claim{index}")) for index in range(32)]
    assert sum(player is not None for player in made) == burst
    for client in clients:
        await client.close()


@pytest.mark.redis
async def test_new_keys_from_one_address_through_two_processes_share_one_budget(
    redis_server: RedisServer,
) -> None:
    # Two server processes on one Redis, as behind a load balancer: the budget is the store's.
    async with (
        run_server(fast_config(store=RedisStore(redis_server.url))) as one,
        run_server(fast_config(store=RedisStore(redis_server.url))) as two,
    ):
        clients = [
            await Client.open(server.url, "x", hello=False)
            for server in (one, two)
            for _ in range(16)
        ]
        answers = await asyncio.gather(
            *(
                client.request(
                    "hello", version=msg.PROTOCOL_VERSION, name=f"Both{index}", key=new_key()
                )
                for index, client in enumerate(clients)
            )
        )
        welcomed = [answer for answer in answers if isinstance(answer, msg.Welcome)]
        assert len(welcomed) == one.config.limits.new_players_burst, answers
        for client in clients:
            await client.close()


async def test_a_link_code_links_a_device_once(running: Server) -> None:
    key = new_key()
    ann = await Client.open(running.url, "Ann", key=key)
    code = await ann.request("link_code")
    assert isinstance(code, msg.LinkCodeReply) and code.expires_in == 600
    assert len(code.code) == 8 and normalize_link_code(code.code) == code.code
    phone_key = new_key()
    phone = await Client.open(running.url, "x", hello=False)
    welcome = await phone.request(
        "hello", version=msg.PROTOCOL_VERSION, name="Phone", key=phone_key, link=code.code.lower()
    )
    assert isinstance(welcome, msg.Welcome) and welcome.player == "Ann"
    # The new key is Ann's from now on, without the code.
    later = await Client.open(running.url, "x", hello=False)
    welcome = await later.request(
        "hello", version=msg.PROTOCOL_VERSION, name="Later", key=phone_key
    )
    assert isinstance(welcome, msg.Welcome) and welcome.player == "Ann"
    # Used once: a second device gets bad_link, and is not Ann's.
    third = await Client.open(running.url, "x", hello=False)
    refused = await third.error_for(
        "hello", version=msg.PROTOCOL_VERSION, name="Third", key=new_key(), link=code.code
    )
    assert refused.code == errors.BAD_LINK
    assert (
        await third.error_for("hello", version=msg.PROTOCOL_VERSION, name="T", link="ABCDEFGH")
    ).code == (errors.INVALID)
    guest = await Client.open(running.url, "Guest")
    assert (await guest.error_for("link_code")).code == errors.NOT_A_PLAYER
    for client in (ann, phone, later, third, guest):
        await client.close()


async def test_a_link_code_expires(tmp_path: Path) -> None:
    clock = Clock()
    async with run_server(fast_config(data=str(tmp_path), clock=clock)) as server:
        ann = await Client.open(server.url, "Ann", key=new_key())
        code = await ann.request("link_code")
        assert isinstance(code, msg.LinkCodeReply)
        clock.now += code.expires_in + 1
        phone = await Client.open(server.url, "x", hello=False)
        refused = await phone.error_for(
            "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link=code.code
        )
        assert refused.code == errors.BAD_LINK
        fresh = await ann.request("link_code")
        assert isinstance(fresh, msg.LinkCodeReply)
        welcome = await phone.request(
            "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link=fresh.code
        )
        assert isinstance(welcome, msg.Welcome) and welcome.player == "Ann"
        for client in (ann, phone):
            await client.close()


async def test_wrong_link_codes_are_bounded_per_address(tmp_path: Path) -> None:
    async with run_server(fast_config(data=str(tmp_path))) as server:
        client = await Client.open(server.url, "x", hello=False)
        codes = []
        for _ in range(25):
            refused = await client.error_for(
                "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link="ZZZZZZZZ"
            )
            codes.append(refused.code)
        assert codes[:20] == [errors.BAD_LINK] * 20
        assert set(codes[20:]) == {errors.RATE_LIMITED}
        await client.close()


async def test_the_key_is_never_logged_sent_recorded_or_answered(
    running: Server, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    key = new_key()
    ann = await finish_match(running.url, "Ann", key, bot="normal", public=False)
    await until_archived(ann)  # a private room: archived for its players, not rated
    code = await ann.request("link_code")
    assert isinstance(code, msg.LinkCodeReply)
    record = await ann.request("record")
    assert isinstance(record, msg.RecordReply)
    second = new_key()
    phone = await Client.open(running.url, "x", hello=False)
    await phone.request("hello", version=msg.PROTOCOL_VERSION, name="P", key=second, link=code.code)
    bad = await Client.open(running.url, "x", hello=False)
    await bad.request(
        "hello", version=msg.PROTOCOL_VERSION, name="Ann", key=new_key() + "!"
    )  # refused: invalid
    answers = [
        await api_get(running.url, "/api/ladder", key),
        await api_get(running.url, "/api/players/Ann", key),
        games := await api_get(running.url, "/api/players/Ann/games", second),
        await api_get(running.url, "/api/players/Ann/games", key + "x"),
    ]
    (game,) = games.json["games"]
    answers.append(await api_get(running.url, f"/api/games/{game['id']}", key))
    for secret in (key, second):
        assert secret not in caplog.text
        for client in (ann, phone, bad):
            assert not any(secret in frame for frame in client.frames)
        for answer in answers:
            assert secret.encode() not in answer.body
        assert secret.encode() not in msgspec.json.encode(record.record)
        if running.config.storage.data is not None:
            for stored in Path(running.config.storage.data).iterdir():
                assert secret.encode() not in stored.read_bytes()
    for client in (ann, phone, bad):
        await client.close()


async def test_link_codes_asked_are_bounded_per_address(running: Server) -> None:
    ann = await Client.open(running.url, "Ann", key=new_key())
    answers = [await ann.request("link_code") for _ in range(6)]
    assert all(isinstance(answer, msg.LinkCodeReply) for answer in answers[:5])
    assert isinstance(answers[5], msg.Error) and answers[5].code == errors.RATE_LIMITED
    # A player holds its last three codes: the first two no longer link.
    codes = [answer.code for answer in answers[:5] if isinstance(answer, msg.LinkCodeReply)]
    phone = await Client.open(running.url, "x", hello=False)
    for code in codes[:2]:
        refused = await phone.error_for(
            "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link=code
        )
        assert refused.code == errors.BAD_LINK
    welcome = await phone.request(
        "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link=codes[4]
    )
    assert isinstance(welcome, msg.Welcome) and welcome.player == "Ann"
    if isinstance(running.store, RedisStore):
        # Redis forgets the others by itself when they expire.
        key = b"allfives:link:" + codes[3].encode()
        ttl = await running.store.link.call("ttl", lambda c: c.ttl(key))
        assert 0 < ttl <= LINK_CODE_SECONDS
    for client in (ann, phone):
        await client.close()
