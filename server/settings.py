"""How a setting is declared and read from text: one field carries its help and its parser.

A group of `server.config` declares each setting with `setting(default, help, parse)`; the
command line (`allfives serve --NAME`), the environment (`ALLFIVES_NAME`) and the generated
reference (docs/reference/config.md) are all made from these fields, so a setting is written
once. The parsers turn text into a value or raise `BadValue` with a line a person can act on.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

#: The proxies whose X-Real-IP / X-Forwarded-For is taken: the networks their sockets come from.
ProxyNetworks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

Parse = Callable[[str], Any]
F = TypeVar("F", bound=Callable[..., Any])


class BadValue(argparse.ArgumentTypeError, ValueError):
    """A value a setting cannot take (argparse shows its message; `serve` reports it too)."""


def setting(default: Any, help: str, parse: Parse, *, option: str = "", variable: str = "") -> Any:
    """A setting's field: its default, one line of help, and how its text is read; its option
    and variable follow its name unless given (`--redis`, `ALLFIVES_REDIS_URL`)."""
    metadata = {"help": help, "parse": parse, "option": option, "variable": variable}
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting as the command line, the environment and the reference show it."""

    name: str
    group: str
    default: Any
    help: str
    parse: Parse
    #: Its command-line option: max_size -> --max-size.
    option: str
    #: Its environment variable: max_size -> ALLFIVES_MAX_SIZE.
    variable: str

    @property
    def metavar(self) -> str:
        """How its value is written in help: yes|no, N, SECONDS..."""
        return str(getattr(self.parse, "metavar", "VALUE"))

    @property
    def shown_default(self) -> str:
        """Its default as it would be written on the command line."""
        return shown(self.default)


def settings_of(groups: dict[str, type[Any]]) -> Iterator[Setting]:
    """Every setting of these groups, in the order they are declared."""
    for group, kind in groups.items():
        for item in dataclasses.fields(kind):
            if "parse" not in item.metadata:
                raise TypeError(f"{kind.__name__}.{item.name} is not declared with setting()")
            meta = item.metadata
            yield Setting(
                item.name,
                group,
                item.default,
                meta["help"],
                meta["parse"],
                meta["option"] or "--" + item.name.replace("_", "-"),
                meta["variable"] or "ALLFIVES_" + item.name.upper(),
            )


def shown(value: object) -> str:
    """A value as it is written on the command line: yes/no for a yes-or-no, `off` for none."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ",".join(str(part) for part in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _named(metavar: str) -> Callable[[F], F]:
    """Give a parser the word its value is shown by in help (`--port PORT`)."""

    def name(parse: F) -> F:
        parse.metavar = metavar  # type: ignore[attr-defined]
        return parse

    return name


@_named("TEXT")
def text(value: str) -> str:
    """Any text, as given."""
    return value


@_named("TEXT|off")
def text_or_off(value: str) -> str | None:
    """Text, or `off` (or nothing) for none."""
    return None if value.strip().lower() in ("", "off", "none") else value


@_named("URL|off")
def redis_url_or_off(value: str) -> str | None:
    """redis://[:password@]host[:port][/db], or `off` for none."""
    url = text_or_off(value)
    if url is not None:
        from server.storage.redis_link import parse_url

        try:
            parse_url(url)
        except ValueError as error:
            raise BadValue(str(error)) from None
    return url


@_named("yes|no")
def yes_or_no(value: str) -> bool:
    """Read yes/no, true/false, on/off or 1/0."""
    words = {"yes": True, "true": True, "on": True, "1": True}
    words |= {"no": False, "false": False, "off": False, "0": False}
    if value.strip().lower() not in words:
        raise BadValue(f"expected yes or no, not {value!r}")
    return words[value.strip().lower()]


@_named("yes|no|NETWORKS")
def proxies(value: str) -> bool | ProxyNetworks:
    """yes/no, or the proxies' addresses or networks, comma-separated (127.0.0.2,10.0.0.0/8)."""
    try:
        return yes_or_no(value)
    except ValueError:
        pass
    try:
        return tuple(ipaddress.ip_network(part.strip()) for part in value.split(","))
    except ValueError:
        raise BadValue(
            f"expected yes, no or the proxies' addresses (127.0.0.2,10.0.0.0/8), not {value!r}"
        ) from None


@_named("PORT")
def port_number(value: str) -> int:
    """A TCP port: 0 (any free one) to 65535."""
    try:
        number = int(value)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise BadValue(f"{value!r} is not a port: 0 to 65535")
    return number


def _number(kind: Callable[[str], Any], value: str) -> Any:
    try:
        number = kind(value)
    except ValueError:
        raise BadValue(
            f"{value!r} is not {'a whole number' if kind is int else 'a number'}"
        ) from None
    if number != number or number in (float("inf"), float("-inf")):
        raise BadValue(f"{value!r} is not a finite number")
    return number


def positive(kind: Callable[[str], Any]) -> Parse:
    """A number of `kind` above zero."""

    @_named("N" if kind is int else "NUMBER")
    def read(value: str) -> Any:
        number = _number(kind, value)
        if not number > 0:
            raise BadValue(f"{value!r} is not above zero")
        return number

    read.__name__ = f"positive_{kind.__name__}"
    return read


@_named("SECONDS")
def seconds(value: str) -> float:
    """A number of seconds, 0 or more."""
    number = float(_number(float, value))
    if not number >= 0:
        raise BadValue(f"{value!r} is below zero")
    return number


@_named("SECONDS|off")
def seconds_or_off(value: str) -> float | None:
    """A number of seconds above zero, or `off` (or 0) for never."""
    if value.strip().lower() in ("off", "none"):
        return None
    number = seconds(value)
    return number if number > 0 else None


@_named("MS|off")
def milliseconds_or_off(value: str) -> float | None:
    """Milliseconds above zero, or `off` for no bound."""
    if value.strip().lower() in ("off", "none"):
        return None
    number = float(_number(float, value))
    if not number > 0:
        raise BadValue(f"{value!r} is not above zero")
    return number
