"""The rules of All Fives, pure and synchronous (RULES.md), and the bots that play them."""

from engine.events import Drew, Event, HandEnded, HandStarted, MatchEnded, Passed, Played
from engine.layout import Layout
from engine.match import Deal, HandRecord, Match, RecordedMove, check_deal
from engine.moves import PASS, IllegalMove, Move
from engine.rules import Rules, RulesError, round5
from engine.tiles import ALL_TILES, End, Tile, mask_of, pips_of, tiles_of
from engine.view import View

__all__ = [
    "ALL_TILES",
    "PASS",
    "Deal",
    "Drew",
    "End",
    "Event",
    "HandEnded",
    "HandRecord",
    "HandStarted",
    "IllegalMove",
    "Layout",
    "Match",
    "MatchEnded",
    "Move",
    "Passed",
    "Played",
    "RecordedMove",
    "Rules",
    "RulesError",
    "Tile",
    "View",
    "check_deal",
    "mask_of",
    "pips_of",
    "round5",
    "tiles_of",
]
