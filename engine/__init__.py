"""The rules of All Fives, pure and synchronous (docs/rules.md), and the bots that play them."""

from engine.events import Drew, Event, HandEnded, HandStarted, MatchEnded, Passed, Played
from engine.hands import Deal, HandRecord, RecordedMove, check_deal
from engine.layout import Layout, layout_from
from engine.match import Match
from engine.moves import PASS, IllegalMove, Move
from engine.replay import ReplayError, replay
from engine.rules import Rules, RulesError, round5
from engine.scoring import blocked_points, domino_points
from engine.tiles import ALL_TILES, End, Tile, is_written_low_first, mask_of, pips_of, tiles_of
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
    "ReplayError",
    "Rules",
    "RulesError",
    "Tile",
    "View",
    "blocked_points",
    "check_deal",
    "domino_points",
    "is_written_low_first",
    "layout_from",
    "mask_of",
    "pips_of",
    "replay",
    "round5",
    "tiles_of",
]
