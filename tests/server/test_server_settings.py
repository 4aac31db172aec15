"""Every setting of the server has one declaration, and from it an option, an environment variable
and a line in docs/reference/config.md; contradictory settings stop `serve` with one line."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.config import GROUP_OF, GROUPS, SETTINGS, Config
from server.reference import PATH, markdown
from server.serve import add_arguments, config_from
from server.settings import Setting, shown

ROOT = Path(__file__).resolve().parents[2]


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(made)
    return made


def another_value(item: Setting) -> Any:
    """A value the setting can take that is not its default."""
    default = item.default
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default * 2 if item.name != "port" else 9
    if isinstance(default, float):
        return default * 2 + 1
    if item.name in ("redis_url",):
        return "redis://127.0.0.1:1/0"
    return "elsewhere"


#: Settings that only go with another (a certificate with its key).
PARTNERS = {"certfile": ("keyfile", "key.pem"), "keyfile": ("certfile", "cert.pem")}


def test_the_reference_says_what_the_declarations_say() -> None:
    assert PATH.read_text() == markdown(), "run: uv run python -m server.reference"
    for item in SETTINGS:
        assert f"`{item.option} " in PATH.read_text()
        assert f"`{item.variable}`" in PATH.read_text()


def test_every_field_of_every_group_is_a_setting_and_the_names_are_unique() -> None:
    fields = [item.name for kind in GROUPS.values() for item in dataclasses.fields(kind)]
    assert sorted(fields) == sorted(item.name for item in SETTINGS) == sorted(GROUP_OF)
    assert len({item.option for item in SETTINGS}) == len(SETTINGS)
    assert len({item.variable for item in SETTINGS}) == len(SETTINGS)


@pytest.mark.parametrize("item", SETTINGS, ids=[item.name for item in SETTINGS])
def test_every_setting_comes_from_its_option_or_its_variable(item: Setting, tmp_path: Path) -> None:
    value = another_value(item)
    if item.name == "data":
        value = str(tmp_path)
    text = shown(value)
    partner, partner_value = PARTNERS.get(item.name, ("", ""))
    given = {f"ALLFIVES_{partner.upper()}": partner_value} if partner else {}
    by_option = config_from(parser().parse_args([item.option, text]), given)
    by_variable = config_from(parser().parse_args([]), {item.variable: text, **given})
    assert by_option.get(item.name) == by_variable.get(item.name) == value
    assert Config().get(item.name) == item.default != value
    # The option wins over the variable; the default's own text reads back as the default.
    contrary = {item.variable: "nonsense", **given}
    both = config_from(parser().parse_args([item.option, text]), contrary)
    assert both.get(item.name) == value
    assert item.parse(item.shown_default) == item.default
    assert by_option.store is None  # settings only: the store is opened by the wiring


def test_a_value_a_setting_cannot_take_names_the_variable() -> None:
    with pytest.raises(ValueError, match=r"\$ALLFIVES_MAX_SIZE: 'big' is not a whole number"):
        config_from(parser().parse_args([]), {"ALLFIVES_MAX_SIZE": "big"})
    with pytest.raises(ValueError, match="not above zero"):
        config_from(parser().parse_args([]), {"ALLFIVES_RATE": "0"})


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--certfile", "cert.pem"], "--certfile and --keyfile go together"),
        (["--redis", "redis://127.0.0.1:1/0", "--data", "somewhere"], "--redis and --data"),
        (
            ["--max-connections", "10", "--max-connections-per-ip", "20"],
            "--max-connections-per-ip 20 is more than --max-connections 10",
        ),
        (["--max-rooms", "4"], "--max-rooms-per-ip 8 is more than --max-rooms 4"),
    ],
)
def test_contradictory_settings_stop_the_server_with_one_line(
    options: list[str], said: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "allfives.cli", "serve", "--port", "0", *options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "somewhere").exists()
