"""Room codes: short for public rooms (they are listed anyway), long for private ones.

A private room is found only by its code, so its code is its secret: 14 letters of a 19-letter
alphabet (no vowels, so no words; none that look like digits) is 19**14, about 8 * 10**17
codes. Together with the budget of failed lookups per address (`server.limits.LookupBudget`) that
puts guessing out of reach: `guessing_seconds` says how long.

Lookups accept a code in any case, with dashes or spaces (`BCDF-GHJK-MNPQ-RS`), so a long code can
be read out in groups (at most 24 characters in all).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Container

ALPHABET = "BCDFGHJKMNPQRSTVWXZ"
PUBLIC_LENGTH = 4
PRIVATE_LENGTH = 14
#: What a stored room code may look like (anything else is no room without asking the store).
_STORED = re.compile(r"[A-Z0-9]{1,24}")


def new_code(public: bool, taken: Container[str] = ()) -> str:
    """A fresh random room code that is not in `taken`: 4 letters if public, 14 if private."""
    length = PUBLIC_LENGTH if public else PRIVATE_LENGTH
    while True:
        code = "".join(secrets.choice(ALPHABET) for _ in range(length))
        if code not in taken:
            return code


def normalise(text: str) -> str:
    """A code as typed, as stored: upper case, without dashes or spaces."""
    return "".join(text.split()).replace("-", "").upper()


def well_formed(code: str) -> bool:
    """Whether a normalised code could name a stored room."""
    return _STORED.fullmatch(code) is not None


def missing(code: str) -> str:
    """The one answer for a room that cannot be found (whatever the reason)."""
    return f"there is no room {code!r} (or no such seat in it)"


def guessing_seconds(rooms: int, addresses: int, per_minute: float, length: int) -> float:
    """Expected seconds to find one of `rooms` private rooms by guessing codes of `length` letters.

    `addresses` guess at once, each at `per_minute` failed lookups (the budget's refill rate); with
    `rooms` codes taken out of the space, the first hit comes after about space / (rooms + 1).
    """
    space: int = len(ALPHABET) ** length
    guesses = space / (max(0, rooms) + 1)
    return guesses / (addresses * per_minute) * 60.0
