"""A name always comes back to its owner: recovery codes, and the operator's `allfives admin`,
against a real server with the embedded store (`--data`) and with Redis."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest
from redis_server import REDIS, RedisServer
from server_helpers import fast_config, new_key
from ws_client_helpers import Client

from allfives import cli
from protocol import errors
from protocol import messages as msg
from protocol.names import FOLD_RULE, name_key
from server.app import Server, run_server
from server.storage.archive import ClaimBudget, Ledger, Player, key_hash
from server.storage.archive_local import LocalLedger
from server.storage.archive_redis import RedisLedger
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.asyncio

CODE = re.compile(r"[0-9A-Z]{4}(?:-[0-9A-Z]{4}){4}")


async def recovery_code(client: Client) -> str:
    reply = await client.request("recovery_code")
    assert isinstance(reply, msg.RecoveryCodeReply), reply
    assert CODE.fullmatch(reply.code), reply.code
    return reply.code


async def hello(url: str, **fields: object) -> msg.AnyServerMessage:
    """What a fresh connection's hello gets."""
    client = await Client.open(url, "x", hello=False)
    answer = await client.request(
        "hello", version=msg.PROTOCOL_VERSION, **{"name": "Someone", **fields}
    )
    await client.close()
    return answer


async def admin(*argv: str) -> tuple[int, str]:
    """`allfives admin ARGV`, run as the operator would (in a thread: it runs its own loop)."""
    lines: list[str] = []

    def run() -> int:
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli.main(["admin", *argv])
        lines.append(out.getvalue())
        return status

    status = await asyncio.to_thread(run)
    return status, lines[0]


async def test_a_recovery_code_brings_the_name_back_to_a_new_device(
    stored_server: tuple[Server, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    server, _ = stored_server
    caplog.set_level(logging.DEBUG)
    owner = await Client.open(server.url, "Ann", key=new_key())
    code = await recovery_code(owner)
    # The browser's storage is gone: a new key under the same name is refused, and says how back.
    refused = await hello(server.url, name="Ann", key=new_key())
    assert isinstance(refused, msg.Error) and refused.code == errors.NAME_TAKEN
    assert "recovery code" in refused.message
    # The code, typed in any case with or without its dashes, makes a new key Ann's again.
    for typed in (code, code.lower().replace("-", " ")):
        back = await hello(server.url, key=new_key(), recover=typed)
        assert isinstance(back, msg.Welcome) and back.player == "Ann", back
    # A new code replaces the old one; a wrong one is refused and changes nothing.
    newer = await recovery_code(owner)
    for wrong in (code, "0" * 20, "short"):
        refused = await hello(server.url, key=new_key(), recover=wrong)
        assert isinstance(refused, msg.Error), refused
        if wrong != "short":
            assert refused.code == errors.BAD_LINK and refused.reason == errors.BAD_RECOVERY
    assert isinstance(await hello(server.url, key=new_key(), recover=newer), msg.Welcome)
    # Only a player keeps a code; it needs a key to restore; neither code was ever logged.
    guest = await Client.open(server.url, "Gus")
    assert (await guest.error_for("recovery_code")).code == errors.NOT_A_PLAYER
    refused = await hello(server.url, recover=newer)
    assert isinstance(refused, msg.Error) and refused.code == errors.INVALID
    # (The test's own client logs its frames at DEBUG: what the server logged is looked at.)
    served = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("allfives"))
    assert "made a new recovery code" in served
    for secret in (code, newer, code.replace("-", ""), newer.replace("-", "")):
        assert secret not in served
    for client in (owner, guest):
        await client.close()


async def test_the_operator_releases_a_name_or_moves_it_to_a_new_device(
    stored_server: tuple[Server, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    server, store = stored_server
    caplog.set_level(logging.INFO)
    old_key = new_key()
    owner = await Client.open(server.url, "Bořek", key=old_key)
    await owner.close()
    status, said = await admin(*store, "show", "borek")
    assert status == 0 and "'Bořek' is player p:" in said
    # Moving: a recovery code printed for the operator to hand over; the old key dropped.
    status, said = await admin(*store, "recover", "Bořek", "--drop-keys")
    match = CODE.search(said)
    assert status == 0 and match is not None
    assert match.group() not in caplog.text and "new recovery code for 'Bořek'" in caplog.text
    back = await hello(server.url, key=(new_device := new_key()), recover=match.group())
    assert isinstance(back, msg.Welcome) and back.player == "Bořek"
    dropped = await hello(server.url, name="Bořek", key=old_key)
    assert isinstance(dropped, msg.Error) and dropped.code == errors.NAME_TAKEN
    # Releasing: anyone may claim the name; the released player keeps its id under a new name.
    status, said = await admin(*store, "release", "BOREK")
    assert status == 0 and "is free" in said and "released the name 'Bořek'" in caplog.text
    claimed = await hello(server.url, name="Borek", key=new_key())
    assert isinstance(claimed, msg.Welcome) and claimed.player == "Borek"
    gone = await hello(server.url, name="Someone", key=new_device)
    assert isinstance(gone, msg.Welcome) and gone.player == "Someone"
    status, said = await admin(*store, "release", "Nobody")
    assert status == 1 and "nobody owns" in said


@pytest.mark.parametrize("kind", ["embedded", REDIS])
async def test_a_ledger_from_before_the_rule_folds_its_names_again_at_start(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # Names claimed under the old fold, which kept accents: four players, two pairs alike now.
    if kind == "embedded":
        ledger: Ledger = LocalLedger(tmp_path / "data")
        config = fast_config(data=str(tmp_path / "data"))
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(redis.url)
        ledger = RedisLedger(store)
        config = fast_config(store=RedisStore(redis.url))
    keys = {name: new_key() for name in ("Bořek", "Borek", "Zedjbz", "Zedjbź")}
    budget = ClaimBudget("127.0.0.1", burst=len(keys), per_second=1.0)
    for when, (name, key) in enumerate(keys.items()):
        old_fold = name.casefold()
        claimed = await ledger.claim_within(key_hash(key), name, old_fold, 1000.0 + when, budget)
        assert isinstance(claimed, Player)
    await ledger.close()
    if kind == "redis":
        await store.close()
    async with run_server(config) as server:
        # The older of each pair holds the name however it is written; the younger plays on
        # by its key, under its own name, but the name is no longer anyone else's to take.
        for name, older in (("borek", "Bořek"), ("BOŘEK", "Bořek"), ("zedjbź", "Zedjbz")):
            found = await server.ledger.player_named(name_key(name))
            assert found is not None and found.name == older, (name, found)
        for name, key in keys.items():
            back = await hello(server.url, name=name, key=key)
            assert isinstance(back, msg.Welcome) and back.player == name, (name, back)
        taken = await hello(server.url, name="Zedjbz\u0307", key=new_key())
        assert isinstance(taken, msg.Error) and taken.code == errors.NAME_TAKEN
        # Done once: a second start changes nothing.
        assert await server.ledger.refold(FOLD_RULE, name_key) == []


async def test_the_operator_is_told_when_the_directory_holds_no_ledger(tmp_path: Path) -> None:
    status, said = await admin("--data", str(tmp_path / "typo"), "release", "Ann")
    assert status == 2 and "no ledger in" in said
    assert not (tmp_path / "typo").exists()
