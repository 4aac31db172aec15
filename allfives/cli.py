"""The `allfives` command: one entry point, one subcommand per tool."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen subcommand."""
    parser = argparse.ArgumentParser(prog="allfives", description="All Fives dominoes")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("version", help="print the version")
    args = parser.parse_args(argv)
    if args.command == "version":
        print("allfives 0.1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
