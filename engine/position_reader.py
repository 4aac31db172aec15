"""Reading a position line (engine.positions): its fields, and the checks that a legal game reaches it.

`Reader(text)` reads the six fields and refuses, with one `PositionError` line, a malformed field,
a tile written twice or missing, a layout whose tiles could not have been played in that shape,
and counts, turns and scores no legal play leads to; `Reader.match` builds the `Match`.
"""

from __future__ import annotations

import re

import msgspec

from engine.events import Drew, Event, HandStarted, Passed, Played
from engine.hands import NO_TILE, Deal, HandRecord
from engine.kernel import points_of
from engine.layout import NOT_OPEN, Layout
from engine.match import Match
from engine.rules import Rules
from engine.tiles import ALL_TILES, IS_DOUBLE, TILE_COUNT, End, Tile, mask_of

FIELDS = ("rules", "layout", "hands", "boneyard", "turn", "scores")
EMPTY = "-"
REST = "..."
_TILE = re.compile(r"([0-6])-([0-6])")
_LAYOUT_TILE = re.compile(r"(\()?([0-6])-([0-6])(\*)?(\))?")
_KEY = re.compile(r"([a-z_]+)=(\S+)")
#: A tile to place: its (inner, outer) numbers, the end, and its index on the line (None on an arm).
Step = tuple[tuple[int, int], End, int | None]
#: The variants a rules field may name, in the order they are written, and their defaults.
VARIANTS: dict[str, object] = {
    "teams": True,
    "hand_size": "standard",
    "target": None,
    "end_scoring": "opponents",
    "reserve": 0,
}


class PositionError(ValueError):
    """A position line that is malformed, or names a position no legal play could reach."""


def tiles_in(text: str) -> tuple[Tile, ...]:
    """``"6-6 5-4"`` -> the tiles, in the order written (``-`` or nothing: none)."""
    words = text.split()
    if words == [EMPTY]:
        return ()
    return tuple(_tile(word) for word in words)


def _tile(word: str) -> Tile:
    found = _TILE.fullmatch(word)
    if found is None:
        raise PositionError(f"not a tile: {word!r} (write tiles as 5-3, numbers 0 to 6)")
    return Tile.of(int(found[1]), int(found[2]))


def _number(word: str, what: str) -> int:
    if not re.fullmatch(r"-?[0-9]+", word):
        raise PositionError(f"{what} must be a whole number, not {word!r}")
    return int(word)


class Reader:
    """One position line, read field by field and checked as it goes."""

    def __init__(self, text: str) -> None:
        if "\n" in text.strip():
            raise PositionError("a position is one line")
        fields = [f.strip() for f in text.split("|")]
        if len(fields) != len(FIELDS):
            raise PositionError(
                f"a position has {len(FIELDS)} fields split by |"
                f" ({' | '.join(FIELDS)}), not {len(fields)}"
            )
        for name, field in zip(FIELDS, fields, strict=True):
            if not field:
                raise PositionError(f"the {name} field is empty (write - for none)")
        self.rules = self._rules(fields[0])
        self.line, self.lead, self.spinner, self.arms = self._layout(fields[1])
        self.hands = self._hands(fields[2])
        self.boneyard = self._boneyard(fields[3])
        self._check_every_tile_once()
        self.layout, self.order = self._play_layout()
        self.turn, self.drew, self.passes, self.leader = self._turn(fields[4])
        self.scores = self._scores(fields[5])

    # -- the fields ---------------------------------------------------------------------------

    def _rules(self, field: str) -> Rules:
        words = field.split()
        players = _number(words[0], "the player count (the rules' first word)")
        given: dict[str, object] = {}
        for word in words[1:]:
            pair = _KEY.fullmatch(word)
            if pair is None or pair[1] not in VARIANTS:
                raise PositionError(
                    f"not a rule: {word!r} (write name=value with a name of {', '.join(VARIANTS)})"
                )
            name, value = pair[1], pair[2]
            if name in given:
                raise PositionError(f"{name} is given twice")
            if name == "teams":
                if value not in ("yes", "no"):
                    raise PositionError(f"teams is yes or no, not {value!r}")
                given[name] = value == "yes"
            elif name in ("target", "reserve"):
                given[name] = _number(value, name)
            else:
                given[name] = value
        try:
            return msgspec.convert({"players": players, **given}, Rules)
        except (msgspec.ValidationError, ValueError) as err:
            raise PositionError(f"these rules are not allowed: {err}") from None

    def _layout(
        self, field: str
    ) -> tuple[list[tuple[int, int]], int, int | None, list[list[tuple[int, int]]]]:
        if field == EMPTY:
            return [], 0, None, [[], []]
        line: list[tuple[int, int]] = []
        arms: list[list[tuple[int, int]]] = [[], []]
        arm: int | None = None
        lead: int | None = None
        spinner: int | None = None
        for word in field.split():
            if word in ("north", "south"):
                index = 0 if word == "north" else 1
                if (arm is not None and index <= arm) or arms[index]:
                    raise PositionError("write the north arm, then the south arm, each once")
                arm = index
                continue
            found = _LAYOUT_TILE.fullmatch(word)
            if found is None or bool(found[1]) != bool(found[5]):
                raise PositionError(
                    f"not a layout tile: {word!r} (write 5-3, (5-3) for the lead, 5-5* for the spinner)"
                )
            pair = (int(found[2]), int(found[3]))
            if found[4] and pair[0] != pair[1]:
                raise PositionError(f"{word} is starred but only a double is a spinner")
            if arm is not None:
                if found[1] or found[4]:
                    raise PositionError(f"{word}: the lead and the spinner lie on the line")
                arms[arm].append(pair)
                continue
            if found[1]:
                if lead is not None:
                    raise PositionError("only one tile leads: bracket one tile of the line")
                lead = len(line)
            if found[4]:
                if spinner is not None:
                    raise PositionError("only one tile is the spinner: star one double")
                spinner = len(line)
            line.append(pair)
        if lead is None:
            raise PositionError("bracket the lead, as in 6-5 (5-1) 1-3")
        return line, lead, spinner, arms

    def _hands(self, field: str) -> list[tuple[Tile, ...]]:
        parts = field.split("/")
        players = self.rules.players
        if len(parts) != players:
            raise PositionError(
                f"{players} players need {players} hands split by /, not {len(parts)}"
            )
        hands = []
        for seat, part in enumerate(parts):
            if not part.strip():
                raise PositionError(f"seat {seat}'s hand is blank (write - for none)")
            hands.append(tiles_in(part))
        return hands

    def _boneyard(self, field: str) -> list[Tile]:
        words = field.split()
        rest = words[-1] == REST
        named = list(tiles_in(" ".join(words[:-1] if rest else words) or EMPTY))
        if rest:
            used = mask_of(self.named()) | mask_of(named)
            named += [t for t in ALL_TILES if not used >> t & 1]
        return named

    def named(self) -> list[Tile]:
        """Every tile the layout and the hands name (the boneyard's own aside)."""
        pairs = [*self.line, *self.arms[0], *self.arms[1]]
        return [Tile.of(a, b) for a, b in pairs] + [t for h in self.hands for t in h]

    def _check_every_tile_once(self) -> None:
        where: dict[int, str] = {}
        places = [("the layout", Tile.of(a, b)) for a, b in self.line]
        places += [
            (f"the {arm} arm", Tile.of(a, b))
            for arm, chain in zip(("north", "south"), self.arms, strict=True)
            for a, b in chain
        ]
        places += [(f"seat {s}'s hand", t) for s, hand in enumerate(self.hands) for t in hand]
        places += [("the boneyard", t) for t in self.boneyard]
        for place, tile in places:
            if tile in where:
                both = f"in {place}" if where[tile] == place else f"in {where[tile]} and {place}"
                raise PositionError(f"{Tile(tile)} is written twice: {both}")
            where[tile] = place
        missing = [str(t) for t in ALL_TILES if t not in where]
        if missing:
            raise PositionError(
                f"every tile is somewhere (or write ... to end the boneyard); missing: {' '.join(missing)}"
            )

    def _play_layout(self) -> tuple[Layout, list[tuple[Tile, int | None, bool]]]:
        """Place the layout's tiles in an order the rules allow; returns it and that order."""
        layout = Layout()
        if not self.line:
            return layout, []
        line, lead, spinner = self.line, self.lead, self.spinner
        west: list[Step] = [
            ((b, a), End.WEST, lead - 1 - i) for i, (a, b) in enumerate(reversed(line[:lead]))
        ]
        east: list[Step] = [
            ((a, b), End.EAST, lead + 1 + i) for i, (a, b) in enumerate(line[lead + 1 :])
        ]
        if spinner is not None and spinner < lead:
            cut = lead - spinner
            steps = west[:cut] + east + west[cut:]
        elif spinner is not None and spinner > lead:
            cut = spinner - lead
            steps = east[:cut] + west + east[cut:]
        else:
            steps = west + east
        steps += [(pair, End.NORTH, None) for pair in self.arms[0]]
        steps += [(pair, End.SOUTH, None) for pair in self.arms[1]]
        a, b = line[lead]
        first = Tile.of(a, b)
        if first.is_double and spinner != lead:
            raise PositionError(f"the lead {first} is a double, so it is the spinner: star it")
        layout.place_lead(first, flipped=a < b)
        order: list[tuple[Tile, int | None, bool]] = [(first, None, a < b)]
        for (inner, outer), end, index in steps:
            tile = Tile.of(inner, outer)
            if layout.open[end] == NOT_OPEN and layout.spinner < 0:
                raise PositionError(f"{tile} is on the {end} arm, but no spinner lies on the line")
            if layout.open[end] == NOT_OPEN:
                raise PositionError(
                    f"{tile} is on the {end} arm, which opens only once both line sides of the spinner are taken"
                )
            if layout.open[end] != inner:
                written = f"{outer}-{inner}" if end == End.WEST else f"{inner}-{outer}"
                raise PositionError(
                    f"{written} does not join the tile inside it on the {end} side"
                    f" ({inner} against {layout.open[end]})"
                )
            had_spinner = layout.spinner >= 0
            layout.place(tile, end)
            if IS_DOUBLE[tile] and not had_spinner and index != spinner:
                raise PositionError(
                    f"{tile} is the first double played on its side of the lead, so it is the spinner: star it"
                )
            if index is not None and index == spinner and had_spinner:
                raise PositionError(
                    f"{tile} cannot be the spinner: a double lies between it and the lead"
                )
            order.append((tile, end, False))
        return layout, order

    def _turn(self, field: str) -> tuple[int, int, int, int]:
        rules, layout = self.rules, self.layout
        players, dealt = rules.players, rules.tiles_per_hand
        words = field.split()
        turn = _number(words[0], "whose turn it is")
        if not 0 <= turn < players:
            raise PositionError(f"there is no seat {turn} in a {players}-player match")
        extra: dict[str, int] = {}
        for word in words[1:]:
            pair = _KEY.fullmatch(word)
            if pair is None or pair[1] not in ("drew", "passed", "led") or pair[1] in extra:
                raise PositionError(
                    f"not a turn word: {word!r} (after the seat: drew=N, passed=N, led=SEAT, each once)"
                )
            extra[pair[1]] = _number(pair[2], pair[1])
        drew, passes = extra.get("drew", 0), extra.get("passed", 0)
        placed = len(self.order)
        default_leader = (turn - placed - passes) % players
        leader = extra.get("led", default_leader)
        if not 0 <= leader < players:
            raise PositionError(f"there is no seat {leader} to have led")
        left, deal_left = len(self.boneyard), TILE_COUNT - players * dealt
        if left > deal_left:
            raise PositionError(
                f"the boneyard holds {left} tiles, but a deal for these rules leaves {deal_left}"
            )
        if left < rules.reserve:
            raise PositionError(
                f"the boneyard holds {left} tiles, but reserve={rules.reserve} keeps them"
            )
        beyond = sum(max(0, len(hand) - dealt) for hand in self.hands)
        if beyond > deal_left - left:
            raise PositionError(
                f"the seats hold {beyond} tiles more than they were dealt,"
                f" but {deal_left - left} have left the boneyard"
            )
        for seat, hand in enumerate(self.hands):
            if not hand:
                raise PositionError(f"seat {seat} holds no tile: its last play ended the hand")
        if not 0 <= drew <= deal_left - left or drew > len(self.hands[turn]):
            raise PositionError(
                f"seat {turn} cannot have drawn {drew}: {deal_left - left} tiles have left the"
                f" boneyard and it holds {len(self.hands[turn])}"
            )
        if not 0 <= passes < players:
            raise PositionError(
                f"passed={passes}: the hand is blocked once all {players} seats pass"
            )
        if not placed and (leader != turn or passes or drew):
            raise PositionError(
                "before the lead, the leader is to play and nobody has drawn or passed"
            )
        exhausted = left == rules.reserve
        if not exhausted:
            # With tiles to draw nobody has passed: seats played in turn from the leader.
            if passes or leader != default_leader:
                raise PositionError(
                    f"with tiles left to draw nobody passes, so after {placed} plays from seat"
                    f" {leader} it is seat {(leader + placed) % players}'s turn"
                )
            for seat, hand in enumerate(self.hands):
                turns = len(range((seat - leader) % players, placed, players))
                if dealt - len(hand) > turns:
                    raise PositionError(
                        f"seat {seat} holds {len(hand)} of the {dealt} dealt but has had {turns} turns"
                    )
        playable = [t for t in self.hands[turn] if not placed or layout.ends_for(t)]
        if passes and (drew or not exhausted):
            raise PositionError("a seat passes only when the boneyard is down to its reserve")
        for back in range(1, passes + 1):
            seat = (turn - back) % players
            if any(layout.ends_for(t) for t in self.hands[seat]):
                raise PositionError(f"seat {seat} passed but holds a tile that plays")
        if not playable and not exhausted:
            raise PositionError(f"seat {turn} holds no tile that plays, so it would have drawn")
        if drew and len(playable) > 1:
            raise PositionError(
                f"seat {turn} drew until a tile played, so it holds one that plays, not {len(playable)}"
            )
        return turn, drew, passes, leader

    def _scores(self, field: str) -> list[int]:
        rules = self.rules
        scores = [_number(word, "a score") for word in field.split()]
        if len(scores) != rules.sides:
            side = "teams" if rules.partnership else "seats"
            raise PositionError(
                f"write {rules.sides} scores, one for each of the {side}, not {len(scores)}"
            )
        for score in scores:
            if score % 5:
                raise PositionError(f"a score is a multiple of 5, not {score}")
            if score >= rules.target_score:
                raise PositionError(
                    f"a score of {score} reaches the target {rules.target_score}: the match is over"
                )
            if score < 0 and rules.end_scoring != "penalty":
                raise PositionError(
                    f"a score of {score}: only end_scoring=penalty takes points away"
                )
        return scores

    # -- the match ------------------------------------------------------------------------------

    def match(self, seed: int | None) -> Match:
        rules, turn = self.rules, self.turn
        hands = [tuple(int(t) for t in h) for h in self.hands]
        boneyard = tuple(int(t) for t in self.boneyard)
        if not self.order:
            fresh = Match.new(rules, seed, deals=[Deal(tuple(hands), boneyard, turn)])
            fresh.scores = list(self.scores)
            return fresh
        layout = self.layout
        open_numbers = tuple(sorted({n for n in layout.open if n >= 0}))
        events: list[Event] = [HandStarted(1, self.leader)]
        replay = Layout()
        for index, (tile, end, flipped) in enumerate(self.order):
            if end is None:
                replay.place_lead(tile, flipped)
            else:
                replay.place(tile, end)
            total = replay.total()
            seat = (self.leader + index) % rules.players
            events.append(
                Played(
                    seat,
                    int(tile),
                    None if end is None else int(end),
                    total,
                    points_of(total),
                    flipped,
                )
            )
        for back in range(self.passes, 0, -1):
            events.append(Passed((turn - back) % rules.players, open_numbers))
        playable = [t for t in self.hands[turn] if layout.ends_for(t)]
        if self.drew:
            events.append(Drew(turn, self.drew, open_numbers))
        stuck = not playable
        forced = int(playable[0]) if self.drew and playable else NO_TILE
        placeholder = Deal(tuple(() for _ in hands), (), self.leader)
        return Match(
            rules=rules,
            seed=seed,
            hand_number=1,
            leader=self.leader,
            hands=[mask_of(h) for h in hands],
            boneyard=list(boneyard),
            layout=layout,
            turn=turn,
            passes=self.passes,
            forced=forced,
            stuck=stuck,
            scores=list(self.scores),
            events=events,
            record=[HandRecord(deal=placeholder)],
            drew_this_turn=self.drew,
        )
