"""Room codes and invites: a private room is found only with its invite secret.

Every room has a 4-letter code, shown on the table and in listings. A private room also has an
invite: 10 more letters, given only to those in the room (`joined.room` is `CODE-INVITE`, the
line its players read out), and needed to find it. Code and invite together are 14 letters of a
19-letter alphabet (no vowels, so no words; none that look like digits): 19**14, about
8 * 10**17, to guess at once, since a private room's code alone finds nothing. Together with the
budget of failed lookups per address (`server.edge.limits.LookupBudget`) that puts guessing out of
reach: `guessing_seconds` says how long.

Lookups accept a room in any case, with dashes or spaces (`bcdf-ghjk-mnpq-rs`), so it can be
read out in groups (at most 24 characters in all).
"""

from __future__ import annotations

import hmac
import itertools
import re
import secrets
from collections.abc import Container

ALPHABET = "BCDFGHJKMNPQRSTVWXZ"
CODE_LENGTH = 4
INVITE_LENGTH = 10
#: What a stored room code may look like (anything else is no room without asking the store).
_STORED = re.compile(r"[A-Z0-9]{1,16}")


def _letters(count: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(count))


#: Random tries before `new_code` goes through every code in turn.
RANDOM_TRIES = 64


def new_code(taken: Container[str] = ()) -> str | None:
    """A fresh random 4-letter room code that is not in `taken`; None when every code is.

    Bounded: after `RANDOM_TRIES` misses it looks at each of the 130,321 codes once, from a
    random one on (under 0.1 s), so a server with almost every code taken still answers.
    """
    for _ in range(RANDOM_TRIES):
        code = _letters(CODE_LENGTH)
        if code not in taken:
            return code
    every = ["".join(letters) for letters in itertools.product(ALPHABET, repeat=CODE_LENGTH)]
    start = secrets.randbelow(len(every))
    return next((c for c in every[start:] + every[:start] if c not in taken), None)


def new_invite() -> str:
    """A fresh invite secret for a private room."""
    return _letters(INVITE_LENGTH)


def handle(code: str, invite: str | None) -> str:
    """What finds a room: its code, and for a private room `CODE-INVITE`."""
    return f"{code}-{invite}" if invite else code


def normalise(text: str) -> str:
    """A room as typed, as compared: upper case, without dashes or spaces."""
    return "".join(text.split()).replace("-", "").upper()


def split(text: str) -> tuple[str, str]:
    """The code and the invite ("" if none) of a room as typed."""
    letters = normalise(text)
    return letters[:CODE_LENGTH], letters[CODE_LENGTH:]


def invite_fits(invite: str | None, given: str) -> bool:
    """Whether `given` opens a room whose invite is `invite` (None: a public room, none needed)."""
    return hmac.compare_digest((invite or "").encode(), given.encode())


def well_formed(code: str) -> bool:
    """Whether a code could name a stored room."""
    return _STORED.fullmatch(code) is not None


def no_seat(text: str) -> str:
    """What a token that holds no seat in room `text` is told (a missing room says the same)."""
    return f"that token holds no seat in room {normalise(text)!r} (or there is no such room)"


def missing(text: str) -> str:
    """The one answer for a room that cannot be found (whatever the reason)."""
    return f"there is no room {normalise(text)!r} (or no such seat in it)"


def guessing_seconds(rooms: int, addresses: int, per_minute: float, letters: int) -> float:
    """Expected seconds to find one of `rooms` private rooms by guessing `letters` letters.

    `addresses` guess at once, each at `per_minute` failed lookups (the budget's refill rate); with
    `rooms` secrets taken out of the space, the first hit comes after about space / (rooms + 1).
    """
    space: int = len(ALPHABET) ** letters
    guesses = space / (max(0, rooms) + 1)
    return guesses / (addresses * per_minute) * 60.0
