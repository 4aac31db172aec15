"""What a seat may play: the legal moves of the seat to play, and a move checked against the rules.

`legal_moves` lists every play (with its end) or the one pass; `check_move` explains a refused
move with `IllegalMove` (a stable code, the rule number from docs/rules.md and a sentence).
Both read a `Match` and change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.hands import NO_TILE
from engine.layout import NOT_OPEN
from engine.moves import LEAD_MOVES, PASS, PLAYS, IllegalMove, Move
from engine.tiles import ALL_TILES, SUIT, TILE_COUNT, End, tiles_of

if TYPE_CHECKING:
    from engine.match import Match


def legal_moves(match: Match) -> list[Move]:
    """Every legal move for the seat to play: plays with their ends, or the one pass."""
    if match.over:
        return []
    if match.stuck:
        return [PASS]
    layout = match.layout
    if layout.empty:
        return [LEAD_MOVES[t] for t in tiles_of(match.hands[match.turn])]
    candidates = (1 << match.forced) if match.forced >= 0 else match.hands[match.turn]
    moves = []
    opened = layout.open
    for e in range(4):
        n = opened[e]
        if n < 0:
            continue
        fits = candidates & SUIT[n]
        if not fits:
            continue
        row = PLAYS[e]
        while fits:
            low_bit = fits & -fits
            moves.append(row[low_bit.bit_length() - 1])
            fits ^= low_bit
    return moves


def check_move(match: Match, seat: int, move: Move) -> tuple[int, int]:
    """Validate a move against the rules; returns the tile and the end it goes to (NO_TILE for a
    lead, and for a pass both), or raises IllegalMove."""
    if match.over:
        raise IllegalMove("match_over", "8.2", "the match is over")
    if seat != match.turn:
        raise IllegalMove(
            "not_your_turn", "1.2", f"it is seat {match.turn}'s turn, not seat {seat}'s"
        )
    tile_or_none = move.tile
    if tile_or_none is None:
        if match.stuck:
            return NO_TILE, NO_TILE
        if match.forced >= 0:
            raise IllegalMove(
                "must_play_drawn",
                "4.2",
                f"the drawn tile {ALL_TILES[match.forced]} must be played",
            )
        raise IllegalMove(
            "must_play", "4.1", "a player who can play must play; passing is not allowed"
        )
    tile = int(tile_or_none)
    if not 0 <= tile < TILE_COUNT:
        raise IllegalMove("no_such_tile", "1.1", f"there is no tile {tile}")
    if not match.hands[seat] >> tile & 1:
        raise IllegalMove("tile_not_held", "4.1", f"seat {seat} does not hold {ALL_TILES[tile]}")
    if match.stuck:
        raise IllegalMove("must_pass", "4.3", "no tile can be played: the player must pass")
    layout = match.layout
    if not layout.lead:
        if move.end is not None:
            raise IllegalMove("lead_has_no_end", "5.1", "the lead starts the line: it takes no end")
        return tile, NO_TILE
    if match.forced >= 0 and tile != match.forced:
        raise IllegalMove(
            "must_play_drawn", "4.2", f"the drawn tile {ALL_TILES[match.forced]} must be played"
        )
    if move.end is not None:
        end = int(move.end)
        if not 0 <= end < 4 or layout.open[end] == NOT_OPEN:
            name = End(end).name.lower() if 0 <= end < 4 else str(end)
            raise IllegalMove("end_not_open", "5.4", f"the {name} end is not open")
        if not SUIT[layout.open[end]] >> tile & 1:
            raise IllegalMove(
                "does_not_match",
                "5.2",
                f"{ALL_TILES[tile]} does not match the {End(end).name.lower()} end ({layout.open[end]})",
            )
        return tile, end
    fits = layout.ends_for(tile)
    if not fits:
        raise IllegalMove("does_not_match", "5.2", f"{ALL_TILES[tile]} matches no open end")
    if len(fits) == 1:
        return tile, fits[0]
    if layout.spinner_sides == [True, True] and fits == [End.WEST, End.EAST]:
        return tile, End.EAST  # a lone lead double: both sides alike (5.6)
    names = " or ".join(End(e).name.lower() for e in fits)
    raise IllegalMove("end_required", "5.6", f"{ALL_TILES[tile]} fits {names}: name the end")
