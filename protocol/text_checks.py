"""The checks a name and a chat line pass beyond their length: stripped, printable, visible,
and no player named like a bot. `protocol.messages` runs them on each frame it reads."""

from __future__ import annotations

from protocol.message_base import MAX_NAME_LENGTH
from protocol.names import BOT_LIKE, name_problem

MAX_CHAT_LENGTH = 200

#: What every bot's name starts with, folded as names are compared (`protocol.names`): "bot:" is
#: its own fold (tests/server/edge/test_server_hardening.py checks it), so importing the protocol loads no
#: confusables data.
BOT_KEY = "bot:"


def validate_name(name: str) -> str:
    """A player name stripped of outer spaces; ValueError unless non-empty, printable and short."""
    cleaned = name.strip()
    if not cleaned:
        raise ValueError("a name cannot be empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise ValueError(f"a name has at most {MAX_NAME_LENGTH} characters")
    if not cleaned.isprintable():
        raise ValueError("a name may hold only printable characters")
    problem = name_problem(cleaned)
    if problem == BOT_LIKE:
        raise ValueError('"bot:" starts the names of bots only')
    if problem is not None:
        raise ValueError("a name may hold only characters a reader can see (no invisible ones)")
    return cleaned


def validate_chat(text: str) -> str:
    """A chat line stripped of outer spaces; ValueError unless non-empty, printable and short."""
    cleaned = text.strip()
    if not cleaned:
        raise ValueError("a chat line cannot be empty")
    if len(cleaned) > MAX_CHAT_LENGTH:
        raise ValueError(f"a chat line has at most {MAX_CHAT_LENGTH} characters")
    if not cleaned.isprintable():
        raise ValueError("a chat line may hold only printable characters (one line)")
    return cleaned
