"""The query of an API request (`?offset=20&limit=10`), read strictly: a request the server
cannot read exactly is refused (400 `bad_request`) rather than half-read.

`read_query` takes a query as `NAME=VALUE` fields joined by `&` (`urllib.parse.parse_qsl` with
strict parsing), each percent-escape two hex digits and the whole UTF-8, at most `MAX_FIELDS`
fields, each name one the route reads (`allowed`: an unknown parameter is refused, as a
misspelt `limt=5` would otherwise be ignored without a word) and given once (a repeated
`offset` has no one meaning). `number` reads a field as a whole number within its bounds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from urllib.parse import parse_qsl

#: The most fields a query may have (`offset` and `limit` are all a route reads).
MAX_FIELDS = 8
#: A percent sign not followed by two hex digits.
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_NUMBER = re.compile(r"[0-9]{1,7}")
#: The longest parameter name quoted back in an error.
_QUOTED = 24


class BadQuery(ValueError):
    """A query refused: `message` says what is wrong with it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def read_query(query: str, allowed: Collection[str]) -> dict[str, str]:
    """The fields of `query` (without its "?") by name (module docstring), or `BadQuery`."""
    if query == "":
        return {}
    if query.count("&") >= MAX_FIELDS:
        raise BadQuery(f"a query has at most {MAX_FIELDS} fields")
    if _BAD_ESCAPE.search(query):
        raise BadQuery("a % in the query must be followed by two hex digits (write %25 for %)")
    try:
        fields = parse_qsl(
            query,
            keep_blank_values=True,
            strict_parsing=True,
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except UnicodeDecodeError:
        raise BadQuery("the query is not UTF-8") from None
    except ValueError:
        raise BadQuery("a query is NAME=VALUE fields joined by &") from None
    found: dict[str, str] = {}
    for name, value in fields:
        if name not in allowed:
            takes = ", ".join(sorted(allowed)) if allowed else "no parameter"
            raise BadQuery(f"unknown query parameter {name[:_QUOTED]!r}: this path takes {takes}")
        if name in found:
            raise BadQuery(f"{name} is given more than once")
        found[name] = value
    return found


def number(fields: Mapping[str, str], name: str, default: int, least: int, most: int) -> int:
    """The field `name` as a whole number from `least` to `most`; `default` when absent."""
    text = fields.get(name)
    if text is None:
        return default
    if not _NUMBER.fullmatch(text) or not least <= int(text) <= most:
        raise BadQuery(f"{name}: a whole number from {least} to {most}")
    return int(text)
