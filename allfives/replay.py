"""`allfives replay FILE [--json]`: check a game record move by move (docs/records.md).

Exit status 0 for a legal record, 1 for an illegal one (the hand, move number and broken rule are
said in words), 2 for a file that is not a record. Never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge.records import ReplayError, match_of, record_of
from clients.cli.i18n import _, ngettext
from engine import Match, RulesError
from protocol.records import Record, RecordFormatError, decode_record, encode_record

LEGAL, ILLEGAL, NOT_A_RECORD = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The replay command's options."""
    parser.add_argument("file", help=_("the record to check (- for standard input)"))
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("print the record back with computed fields added"),
    )


def run(args: argparse.Namespace) -> int:
    """Check the record; print a verdict (or the annotated record with --json)."""
    loaded = load(args.file, "replay")
    if isinstance(loaded, int):
        return loaded
    record, match = loaded
    if args.json:
        annotate(record, record_of(match, record.names))
        sys.stdout.buffer.write(encode_record(record) + b"\n")
    else:
        print(verdict(record, match.over, match.scores, match.winner))
    return LEGAL


def load(file: str, command: str = "replay") -> tuple[Record, Match] | int:
    """Read a record (a path, or - for standard input) and replay it.

    On failure it says why on stderr, as `allfives COMMAND: ...`, and returns the exit status
    (ILLEGAL or NOT_A_RECORD); other commands that read records share it.
    """
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as error:
        said = _("cannot read {file}: {reason}").format(file=file, reason=error.strerror)
        print(f"allfives {command}: {said}", file=sys.stderr)
        return NOT_A_RECORD
    try:
        record = decode_record(data)
        match = match_of(record)
    except RecordFormatError as error:
        said = _("not a record: {reason}").format(reason=error)
        print(f"allfives {command}: {said}", file=sys.stderr)
        return NOT_A_RECORD
    except RulesError as error:
        said = _("not a record: rules: {reason}").format(reason=error)
        print(f"allfives {command}: {said}", file=sys.stderr)
        return NOT_A_RECORD
    except ReplayError as error:
        said = _("illegal: {reason}").format(reason=error)
        print(f"allfives {command}: {said}", file=sys.stderr)
        return ILLEGAL
    return record, match


def annotate(record: Record, computed: Record) -> None:
    """Add replay's computed fields to a record, keeping its moves as they were written."""
    for hand, done in zip(record.hands, computed.hands, strict=False):
        for move, known in zip(hand.moves, done.moves, strict=True):
            move.drew, move.total, move.points = known.drew, known.total, known.points
        hand.result = done.result
    record.scores = computed.scores
    record.winner = computed.winner


def verdict(record: Record, over: bool, scores: list[int], winner: object) -> str:
    """One line a person reads: legal, how many hands, the scores, the winner (in the
    player's language: the engine's own reasons for a broken record stay in English)."""
    count = len(record.hands)
    if record.rules.partnership:
        said = ngettext(
            "legal: {count} hand; scores by teams: {scores}",
            "legal: {count} hands; scores by teams: {scores}",
            count,
        )
    else:
        said = ngettext(
            "legal: {count} hand; scores by seats: {scores}",
            "legal: {count} hands; scores by seats: {scores}",
            count,
        )
    text = said.format(count=count, scores=scores)
    if not over:
        return text + "; " + _("the match is unfinished")
    return text + "; " + _("winner: {winner}").format(winner=winner)
