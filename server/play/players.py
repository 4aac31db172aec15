"""Who a connection is: a player known by its key, or a guest; name claims and link codes.

`Players.greet` reads the `key` and `link` of a `hello` (the key is hashed at once and only the
hash goes further) and answers with the connection's player, or refuses (`name_taken`,
`bad_link`, `rate_limited`). The rules (protocol/README.md, "Players and keys"):

- a known key plays under its player's name, whatever the hello says;
- a new key claims the name (compared as people read it, `protocol.names`), unless a player
  owns it: `name_taken`;
- no key: a guest, who may use any name no player owns (`name_taken` otherwise), and claims
  nothing; the name is checked again each time the guest takes a seat (`join`, `create_room`)
  or takes one back by its token, so a name claimed meanwhile is the claimer's from then on;
- a seat a key sat in is taken back by its token only with that player's key (`check_seat`);
- `link` with a key: the key joins the code's player; a bad code is `bad_link`;
- `recover` with a key: the key joins the player of that recovery code (`recovery_code` makes
  one, shown once, kept as a hash, good until the player makes another); a bad one is
  `bad_link` with the reason `bad_recovery`, charged as a wrong link code.

Per address: new players (`new_players_burst`, then `new_players_per_hour`; kept and charged in
the ledger with the claim, so the same for every process on a store), link codes asked
(`links_burst`, then `links_per_hour`) and bad link codes (`bad_links_burst`, then
`bad_links_per_hour`: past them every `link` from the address is refused for a while). These keep
a client from filling the store with players or guessing codes (docs/security.md).
"""

from __future__ import annotations

import secrets
import time

from protocol import codes, errors
from protocol import messages as msg
from protocol.names import name_key
from server.config import Clock, Limits
from server.play.budgets import AddressBuckets, address_key
from server.rooms.room import RoomError
from server.rooms.room_state import SeatState
from server.storage.archive import ClaimBudget, Ledger, Limited, Player, key_hash

HOUR = 3600.0


class Players:
    """Keys, names and link codes for the sessions (module docstring)."""

    def __init__(self, ledger: Ledger, clock: Clock, limits: Limits | None = None) -> None:
        """`limits`: the configuration whose per-address bounds apply (its defaults if None)."""
        limits = limits or Limits()
        self.ledger = ledger
        self.clock = clock
        self.new_players_burst = limits.new_players_burst
        self.new_players_rate = limits.new_players_per_hour / HOUR
        self.links = AddressBuckets(limits.links_burst, limits.links_per_hour / HOUR)
        self.bad_links = AddressBuckets(limits.bad_links_burst, limits.bad_links_per_hour / HOUR)

    async def greet(self, hello: msg.Hello, address: str) -> Player | None:
        """The player a hello speaks for (None: a guest); RoomError if it is refused."""
        if hello.key is None:
            if hello.link is not None:
                raise RoomError(errors.INVALID, "link: a link code needs a key to link")
            if hello.recover is not None:
                raise RoomError(errors.INVALID, "recover: a recovery code needs a key to restore")
            if hello.name is not None:
                await self.check_guest_name(hello.name)
            return None
        hashed = key_hash(hello.key)
        if hello.link is not None and hello.recover is not None:
            raise RoomError(
                errors.INVALID, "recover: give a link code or a recovery code, not both"
            )
        if hello.link is not None:
            return await self._link(hello.link, hashed, address)
        if hello.recover is not None:
            return await self._recover(hello.recover, hashed, address)
        known = await self.ledger.player_of_key(hashed)
        if known is not None:
            return known
        if hello.name is None:
            raise RoomError(errors.INVALID, "name: a new key claims a name: give one")
        name = hello.name
        # Charged in the ledger, in the same step as the claim: claims at once, from this
        # process or any other on the store, never make more players than the budget.
        budget = ClaimBudget(address_key(address), self.new_players_burst, self.new_players_rate)
        player = await self.ledger.claim_within(hashed, name, name_key(name), self.clock(), budget)
        if isinstance(player, Limited):
            raise RoomError(
                errors.RATE_LIMITED, "too many new players from your address: try again later"
            )
        if player is None:
            raise RoomError(errors.NAME_TAKEN, _taken(name))
        return player

    async def check_guest_name(self, name: str) -> None:
        """RoomError `name_taken` if a player owns the name (a guest may not use it), `invalid`
        if there is none (a guest who said hello without a name only watches)."""
        if not name:
            raise RoomError(
                errors.INVALID,
                "name: you said hello without a name: give one to take a seat or chat",
            )
        if await self.ledger.player_named(name_key(name)) is not None:
            raise RoomError(errors.NAME_TAKEN, _taken(name))

    async def check_seat(self, held: SeatState, player: Player | None) -> None:
        """RoomError unless a connection speaking for `player` may take `held` back by its
        token: a seat a key sat in only with that player's key (`bad_token`), a guest's seat
        only while its name is nobody's, or the connection's own player's (`name_taken`)."""
        if isinstance(held.player, str):
            if player is None or player.id != held.player:
                raise RoomError(
                    errors.BAD_TOKEN,
                    "this seat is a player's with a key: resume it from a device with that "
                    "player's key (link this device first)",
                )
            return
        owner = await self.ledger.player_named(name_key(held.name))
        if owner is not None and (player is None or owner.id != player.id):
            raise RoomError(errors.NAME_TAKEN, _taken(held.name))

    async def link_code(self, player: Player | None, address: str) -> msg.LinkCodeReply:
        """A new one-time code linking another device to `player` (RoomError without one)."""
        if player is None:
            raise RoomError(errors.NOT_A_PLAYER, "only a player with a key can link another device")
        if not self.links.take(address, time.monotonic()):
            raise RoomError(errors.RATE_LIMITED, "too many link codes asked: try again later")
        while True:
            code = "".join(
                secrets.choice(codes.LINK_ALPHABET) for _ in range(codes.LINK_CODE_LENGTH)
            )
            if await self.ledger.add_link(player.id, code, self.clock(), codes.LINK_CODE_SECONDS):
                return msg.LinkCodeReply(code=code, expires_in=codes.LINK_CODE_SECONDS)

    async def recovery_code(self, player: Player | None, address: str) -> msg.RecoveryCodeReply:
        """A new recovery code for `player`, which replaces any older one (RoomError without a
        player). Only its hash is kept; the code is in this answer alone."""
        if player is None:
            raise RoomError(
                errors.NOT_A_PLAYER, "only a player with a key can keep a recovery code"
            )
        if not self.links.take(address, time.monotonic()):
            raise RoomError(errors.RATE_LIMITED, "too many codes asked: try again later")
        code = new_recovery_code()
        await self.ledger.set_recovery(player.id, key_hash(code))
        return msg.RecoveryCodeReply(code=codes.shown_recovery_code(code))

    async def _recover(self, given: str, hashed: str, address: str) -> Player:
        # Charged like a link code: the token first, given back when the code was right.
        if not self.bad_links.take(address, time.monotonic()):
            raise RoomError(
                errors.RATE_LIMITED, "too many wrong codes from your address: try again later"
            )
        code = codes.normalize_recovery_code(given)
        try:
            player = (
                None
                if code is None
                else await self.ledger.use_recovery(key_hash(code), hashed, self.clock())
            )
        except BaseException:
            self.bad_links.refund(address, time.monotonic())
            raise
        if player is None:
            raise RoomError(
                errors.BAD_LINK, "that recovery code is none of this server's", errors.BAD_RECOVERY
            )
        self.bad_links.refund(address, time.monotonic())
        return player

    async def _link(self, link: str, hashed: str, address: str) -> Player:
        # The token is taken before the code is looked up and given back when it was right, so
        # lookups in flight at once (a store that answers slowly) cannot spend more than the
        # budget; a lookup the store failed costs nothing either.
        if not self.bad_links.take(address, time.monotonic()):
            raise RoomError(
                errors.RATE_LIMITED, "too many wrong link codes from your address: try again later"
            )
        code = codes.normalize_link_code(link)
        try:
            player = (
                None if code is None else await self.ledger.use_link(code, hashed, self.clock())
            )
        except BaseException:
            self.bad_links.refund(address, time.monotonic())
            raise
        if player is None:
            raise RoomError(errors.BAD_LINK, "that link code is unknown, used already, or expired")
        self.bad_links.refund(address, time.monotonic())
        return player


def new_recovery_code() -> str:
    """A fresh recovery code: RECOVERY_CODE_LENGTH characters of the link codes' alphabet."""
    return "".join(secrets.choice(codes.LINK_ALPHABET) for _ in range(codes.RECOVERY_CODE_LENGTH))


def _taken(name: str) -> str:
    return (
        f"the name {name!r} belongs to another player: choose another; if it is yours, link "
        "this device with a code from one of yours, or restore it with your recovery code"
    )


__all__ = ["Players"]
