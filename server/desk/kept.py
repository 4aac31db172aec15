"""What the desk keeps of a tournament, stored whole (`store.tournaments`): the core's state
(`server.tournaments.stored`), the invite of a private one, the host's name as shown and whether
its matches are rated; the codes that find one (5 letters; a private one's `CODE-INVITE`, as a
room's); and its public view."""

from __future__ import annotations

import secrets

import msgspec

from protocol.api import TournamentSummary
from protocol.tournaments import TournamentView
from server.rooms import codes
from server.tournaments.stored import Tournament
from server.tournaments.view import entrant_of, public_view, summary

CODE_LENGTH = 5


class Opening(msgspec.Struct, array_like=True, frozen=True):
    """A process opening the current round's tables (`server.desk.lease`): its id, and until
    when (Unix seconds) the others leave them to it."""

    by: str
    until: float


class Kept(msgspec.Struct, kw_only=True):
    """A tournament as the desk stores it."""

    tournament: Tournament
    host_name: str
    invite: str | None = None
    #: Whether its tables' matches are rated (None, as kept before it was: as a room's default,
    #: a public tournament's are, a private one's are not).
    rated: bool | None = None
    #: With several processes, the one opening the current round's tables now (None: none).
    opening: Opening | None = None

    @property
    def is_rated(self) -> bool:
        return self.rated if self.rated is not None else self.tournament.public

    @property
    def private_games(self) -> bool:
        """Whether its tables' archived games are their players' alone: a private room's
        unrated match, as the archive keeps it (`server.play.finish.archived_of`)."""
        return not self.tournament.public and not self.is_rated


def encode(kept: Kept) -> bytes:
    return msgspec.msgpack.encode(kept)


def decode(data: bytes) -> Kept:
    return msgspec.msgpack.decode(data, type=Kept)


def new_code() -> str:
    """A random tournament code (5 letters: never a room's 4)."""
    return "".join(secrets.choice(codes.ALPHABET) for _ in range(CODE_LENGTH))


def handle(code: str, invite: str | None) -> str:
    """What finds a tournament: its code, and for a private one `CODE-INVITE`."""
    return codes.handle(code, invite)


def split(text: str) -> tuple[str, str]:
    """The code and the invite ("" if none) of a tournament as typed (any case, dashes, spaces)."""
    letters = codes.normalise(text)
    return letters[:CODE_LENGTH], letters[CODE_LENGTH:]


def view_of(code: str, kept: Kept, version: int, player: str | None = None) -> TournamentView:
    """The tournament's public view (`server.tournaments.view`), as its followers are sent it:
    private games shown only to the `player` (an id) who sat at their table."""
    return public_view(
        kept.tournament,
        code=code,
        version=version,
        host=kept.host_name,
        private_games=kept.private_games,
        viewer=entrant_of(kept.tournament, player),
    )


def summary_of(code: str, kept: Kept) -> TournamentSummary:
    """The tournament's line in the API's list (`server.tournaments.view.summary`): the same
    words as its public view."""
    return summary(kept.tournament, code=code, host=kept.host_name)


def opens(kept: Kept, invite: str) -> bool:
    """Whether `invite` (as typed) finds this tournament: none for a public one."""
    return codes.invite_fits(kept.invite, invite)
