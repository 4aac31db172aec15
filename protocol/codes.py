"""Link and recovery codes as the protocol writes and reads them (protocol/README.md, "Players
and keys"): Crockford's base32, any case, I and L read as 1, O as 0."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

#: A one-time link code: 8 characters of Crockford's base32, any case (I and L read as 1, O as 0).
LINK_CODE_LENGTH = 8
LINK_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LinkCode = Annotated[str, Meta(pattern="^[0-9A-Za-z]{8}$")]
#: Seconds a link code lives.
LINK_CODE_SECONDS = 600
#: A recovery code: 20 characters of the same alphabet (100 bits), shown in groups of four
#: ("ABCD-EFGH-..."), dashes and spaces ignored; it lasts until the player makes another.
RECOVERY_CODE_LENGTH = 20
RecoveryCode = Annotated[str, Meta(pattern="^[0-9A-Za-z -]{20,40}$")]


def normalize_link_code(code: str) -> str | None:
    """A link code as the server keeps it (upper case, I and L as 1, O as 0); None if it holds a
    character of no code (U)."""
    folded = code.upper().replace("I", "1").replace("L", "1").replace("O", "0")
    if len(folded) != LINK_CODE_LENGTH or any(char not in LINK_ALPHABET for char in folded):
        return None
    return folded


def normalize_recovery_code(code: str) -> str | None:
    """A recovery code as the server hashes it (dashes and spaces out, then as a link code's
    letters); None if it is not one."""
    folded = code.replace("-", "").replace(" ", "").upper()
    folded = folded.replace("I", "1").replace("L", "1").replace("O", "0")
    if len(folded) != RECOVERY_CODE_LENGTH or any(char not in LINK_ALPHABET for char in folded):
        return None
    return folded


def shown_recovery_code(code: str) -> str:
    """A recovery code as people copy it: ABCD-EFGH-JKMN-PQRS-TVWX."""
    return "-".join(code[start : start + 4] for start in range(0, len(code), 4))


__all__ = [
    "LINK_ALPHABET",
    "LINK_CODE_LENGTH",
    "LINK_CODE_SECONDS",
    "RECOVERY_CODE_LENGTH",
    "LinkCode",
    "RecoveryCode",
    "normalize_link_code",
    "normalize_recovery_code",
    "shown_recovery_code",
]
