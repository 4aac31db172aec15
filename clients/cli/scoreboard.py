"""The match hand by hand, for `/scores`, the end-of-hand result and the end-of-match summary.

`Scoreboard.take(event, view)` follows the events the client sees. Each hand's line holds the
points won during play and at its end, per player (or team); the biggest single play and who
went out are kept for the summary. `explain_hand` says how a hand's end was counted, in the
words of docs/rules.md 7: each side's pips, the sum counted, its rounding, and the points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from clients.cli import words
from clients.cli.i18n import _
from protocol.records import Record
from protocol.rules import Rules
from protocol.tiles import EndName
from protocol.views import AnyEvent, HandCount, HandEnded, HandStarted, Played

#: A player's name in a column of the scoreboard is cut past this many characters.
COLUMN = 12


def side_names(names: Sequence[str], rules: Rules) -> list[str]:
    """One name per scores entry: "Team A (Ann & Cid)" in a partnership, else each player."""
    if not rules.partnership:
        return list(names)
    return [words.side_of(team, names, True) for team in (0, 1)]


@dataclass
class HandLine:
    """One hand: points per side won by plays and at the end, how it ended and by whom."""

    number: int
    played: list[int]
    ended: HandEnded | None = None

    @property
    def points(self) -> list[int]:
        """Points per side in this hand, plays and end together."""
        end = self.ended.points if self.ended is not None else [0] * len(self.played)
        return [a + b for a, b in zip(self.played, end, strict=False)]


@dataclass
class Scoreboard:
    """See the module docstring."""

    hands: list[HandLine] = field(default_factory=list)
    #: (points, seat, tile, hand number) of the biggest single play so far.
    biggest: tuple[int, int, str, int] | None = None

    @classmethod
    def of_record(cls, record: Record, sides: Sequence[int] = ()) -> Scoreboard:
        """The match hand by hand as the server's record of it says: each play's points and each
        hand's end as the server counted them (`sides` as in `take`)."""
        board = cls()
        rules = record.rules
        for number, hand in enumerate(record.hands, start=1):
            board.take(HandStarted(number=number, leader=hand.leader), rules, sides)
            for move in hand.moves:
                if move.tile is not None:
                    played = Played(
                        seat=move.seat,
                        tile=move.tile,
                        end=cast(EndName | None, move.end),  # the record's check names it
                        total=move.total or 0,
                        points=move.points or 0,
                    )
                    board.take(played, rules, sides)
            if hand.result is not None:
                result = hand.result
                ended = HandEnded(
                    kind=result.kind, by=result.by, points=list(result.points), pips=[]
                )
                board.take(ended, rules, sides)
        return board

    def complete(self) -> bool:
        """Whether every hand from the first is here (a window that joined late, or was away
        for whole hands, lacks some)."""
        numbers = [line.number for line in self.hands]
        return bool(numbers) and numbers == list(range(1, len(numbers) + 1))

    def take(self, event: AnyEvent, rules: Rules, sides: Sequence[int] = ()) -> None:
        """Follow one event of the match; `sides` is each seat's index in the scores, as the
        room says (`RoomView.sides`: a server before it gives none, and a seat is its own)."""
        match event:
            case HandStarted(number=number):
                if self.hands and number < self.hands[-1].number:  # a new match (a rematch)
                    self.hands, self.biggest = [], None
                if not self.hands or self.hands[-1].number != number:
                    self.hands.append(HandLine(number, [0] * rules.sides))
            case Played(seat=seat, tile=tile, points=points) if self.hands:
                side = sides[seat] if seat < len(sides) else seat
                played = self.hands[-1].played
                if side < len(played):
                    played[side] += points
                if points and (self.biggest is None or points > self.biggest[0]):
                    self.biggest = (points, seat, tile, self.hands[-1].number)
            case HandEnded() if self.hands:
                self.hands[-1].ended = event

    def rows(
        self, names: Sequence[str], rules: Rules, scores: Sequence[int] | None = None
    ) -> list[str]:
        """The scoreboard as text rows: a column per player or team, a row per hand, totals.
        `scores` are the server's (`GameView.scores`): the totals row is theirs, and what the
        hands this window saw do not account for (the hands before it joined, or while it was
        away) is a row of its own, so the board never contradicts the match's result."""
        sides = side_names(names, rules)
        titles = [words.team_word(team) for team in (0, 1)] if rules.partnership else list(names)
        titles = [title if len(title) <= COLUMN else title[: COLUMN - 1] + "…" for title in titles]
        width = max(6, *(len(title) for title in titles))
        hand_word, total_word = _("hand"), _("total")
        first = max(6, len(hand_word) + 2, len(total_word) + 1)
        head = f"{hand_word:<{first}}" + "  ".join(f"{title:>{width}}" for title in titles)
        head += "  " + _("how it ended")
        rows = [head]
        totals = [0] * len(sides)
        earlier = self.earlier(scores, len(sides))
        unseen = self.unseen()
        missed = earlier  # told once, where the first hand this window missed was played
        if earlier is not None:
            totals = list(earlier)
        for line in self.hands:
            if missed is not None and line.number > unseen[0]:
                label = hand_numbers(unseen)
                cells = "  ".join(f"{point:>{width}}" for point in missed)
                how = _("earlier hands, as the server counts them")
                rows.append(f"{label:>{first - 2}}  {cells}  {how}")
                missed = None
            points = line.points
            totals = [a + b for a, b in zip(totals, points, strict=False)]
            cells = "  ".join(f"{point:>{width}}" for point in points)
            rows.append(f"{line.number:>{first - 2}}  {cells}  {self._how(line, names)}")
        rows.append(f"{total_word:<{first}}" + "  ".join(f"{total:>{width}}" for total in totals))
        if rules.partnership:
            rows.append(
                " · ".join(f"{words.team_word(t)}: {names[t]} & {names[t + 2]}" for t in (0, 1))
            )
        elif titles != sides:  # names cut to fit their column, written out whole
            rows.append(
                " · ".join(f"{t}: {n}" for t, n in zip(titles, sides, strict=True) if t != n)
            )
        if earlier is None and self.hands and self.hands[0].number > 1:
            rows.append(
                _("(hands before {number} were not seen by this window)").format(
                    number=self.hands[0].number
                )
            )
        if self.biggest is not None:
            scored, seat, tile, hand = self.biggest
            rows.append(
                _("Biggest play: {who}, {tile} for {points} in hand {number}").format(
                    who=names[seat], tile=tile, points=scored, number=hand
                )
            )
        return rows

    def unseen(self) -> list[int]:
        """The numbers of the hands before the last that this window did not see (it joined
        late, or was away for whole hands)."""
        seen = {line.number for line in self.hands}
        last = self.hands[-1].number if self.hands else 1
        return [number for number in range(1, last) if number not in seen]

    def earlier(self, scores: Sequence[int] | None, sides: int) -> list[int] | None:
        """Per side, the server's `scores` less the points of the hands this window saw: the
        hands it did not see (`unseen`); None without such scores or when it saw them all."""
        if scores is None or len(scores) != sides or not self.unseen():
            return None
        seen = [0] * sides
        for line in self.hands:
            seen = [a + b for a, b in zip(seen, line.points, strict=False)]
        return [total - counted for total, counted in zip(scores, seen, strict=True)]

    @staticmethod
    def _how(line: HandLine, names: Sequence[str]) -> str:
        ended = line.ended
        if ended is None:
            return _("in play")
        if ended.kind == "domino" and ended.by is not None:
            return _("{who} went out").format(who=names[ended.by])
        if ended.kind == "blocked":
            return _("blocked")
        return _("match won mid-hand")


def hand_numbers(numbers: Sequence[int]) -> str:
    """Hand numbers in short: "1–4", "2", "2–3, 5"."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs)


def explain_hand(event: HandEnded, names: Sequence[str], rules: Rules) -> list[str]:
    """How a hand's end was counted: pips per side, the sum counted, the rounding, the points."""
    sides = side_names(names, rules)
    pips = list(event.side_pips)  # the server's sum per side
    if not pips:  # a server before side_pips: each seat's own
        sides, pips = list(names), list(event.pips)
    by = names[event.by] if event.by is not None and event.by < len(names) else "?"
    if event.kind == "won":
        return [_("{who} reached the target: the pips left were not counted.").format(who=by)]
    # A team's name ends in its players, "Team A (Ann & Cid) 11": no name runs into its count.
    held = ", ".join(
        f"{name} {side_pips}" if rules.partnership else words.pips_of(name, side_pips)
        for name, side_pips in zip(sides, pips, strict=False)
    )
    if event.kind == "domino":
        rows = [_("{who} went out. Pips left: {held}.").format(who=by, held=held)]
    else:
        rows = [_("The hand is blocked. Pips left: {held}.").format(held=held)]
    if rules.end_scoring == "penalty":
        losses = "; ".join(
            _("{who}: {rounding}, loses {points}").format(
                who=_name(names, count.seats[0]),
                rounding=rounding(count.pips, -count.points),
                points=-count.points,
            )
            for count in event.counts
            if count.pips
        )
        if losses:
            rows.append(
                _("Each loses their own pips, rounded to a multiple of five: {losses}.").format(
                    losses=losses
                )
            )
        else:
            rows.append(_("Each loses their own pips: nobody holds any."))
    elif any(count.points for count in event.counts):
        for count in event.counts:
            rows.append(
                _("Counted: {counted}. {rounding}: {side} scores {points}.").format(
                    counted=_counted(count, names, event),
                    rounding=rounding(count.pips, count.points),
                    side=sides[count.side],
                    points=count.points,
                )
            )
    elif event.counts:
        first = event.counts[0]
        return [
            *rows,
            _("Counted: {counted}. {rounding}: nobody scores.").format(
                counted=_counted(first, names, event), rounding=rounding(first.pips, first.points)
            ),
        ]
    else:
        rows.append(_why_nobody(sides, pips, rules))
    return rows


def rounding(counted: float, rounded: int) -> str:
    """ "8 rounds to 10", or "15 is a multiple of five": `rounded` as the server counted it (the
    browser's words, `result.rounds`)."""
    if counted == rounded:
        return _("{value} is a multiple of five").format(value=words.number(counted))
    return _("{value} rounds to {rounded}").format(value=words.number(counted), rounded=rounded)


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else "?"


def _counted(count: HandCount, names: Sequence[str], event: HandEnded) -> str:
    """The pips a side counted, as the server's count says: "12 (Bot 2) + 3 (Cid) = 15"."""
    held = [
        (_name(names, seat), event.pips[seat] if seat < len(event.pips) else 0)
        for seat in count.seats
    ]
    if count.halved and held:
        return _("half of {side}'s {pips} pips").format(side=held[0][0], pips=held[0][1])
    written = " + ".join(words.pips_of(name, pips) for name, pips in held)
    if len(held) > 1:
        return f"{written} = {words.number(count.pips)}"
    return _("{counted} pips").format(counted=written)


def _why_nobody(sides: list[str], pips: list[int], rules: Rules) -> str:
    """Why a block counted nothing (docs/rules.md 7.3): the fewest pips are tied."""
    fewest = min(pips)
    lows = [side for side, count in enumerate(pips) if count == fewest]
    if len(lows) == len(pips):
        if rules.partnership:
            said = _("Nobody scores: the teams hold the same pips ({pips}).")
        elif len(pips) == 2:
            said = _("Nobody scores: both hold the same pips ({pips}).")
        else:
            said = _("Nobody scores: everyone holds the same pips ({pips}).")
        return said.format(pips=fewest)
    tied = words.both([sides[side] for side in lows])
    return _("Nobody scores: the fewest pips are tied ({tied}, {pips} each).").format(
        tied=tied, pips=fewest
    )
