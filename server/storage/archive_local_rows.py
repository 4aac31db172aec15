"""The rows of `LocalLedger`'s SQLite tables: what each of its transactions is built from.

A player's row and keys (a new player, a key joining one, at most `MAX_KEYS` each), a rating's
row with its history (`seen`), a player's rating points (the last `MAX_HISTORY_POINTS`), and
the archive trimmed to its bound. Each function runs inside the transaction it is handed.
"""

from __future__ import annotations

import secrets
import sqlite3

import msgspec

from server.storage.archive import MAX_HISTORY_POINTS, MAX_KEYS, Player, StoredRating


class _Seen(msgspec.Struct, frozen=True):
    """A rating's history for the weight of a match (`StoredRating`), as the `seen` column."""

    played: float = 0.0
    opponents: list[str] = msgspec.field(default_factory=list)
    recent: list[tuple[str, float]] = msgspec.field(default_factory=list)


_seen_decoder = msgspec.json.Decoder(_Seen)


def seen_of(rating: StoredRating) -> bytes:
    """A rating's history as the `seen` column keeps it."""
    return msgspec.json.encode(_Seen(rating.played, rating.opponents, rating.recent))


def stored(mu: float, sigma: float, games: int, wins: int, seen: bytes | str) -> StoredRating:
    """A rating row as kept, with its history (`seen`): whether a player is provisional is
    read from it, so every reader of a rating reads it whole."""
    kept = _seen_decoder.decode(seen)
    return StoredRating(mu, sigma, games, wins, kept.played, kept.opponents, kept.recent)


def player_of_key(db: sqlite3.Connection, hashed: str) -> Player | None:
    """The player a key (its hash) belongs to, if any."""
    row = db.execute(
        "SELECT p.id, p.name FROM keys k JOIN players p ON p.id = k.player WHERE k.hash = ?",
        (hashed,),
    ).fetchone()
    return None if row is None else Player(str(row[0]), str(row[1]))


def new_player(db: sqlite3.Connection, hashed: str, name: str, fold: str, now: float) -> Player:
    """A new player with this name and fold, and the key that claimed it."""
    id = new_id(db)
    db.execute("INSERT INTO players VALUES (?, ?, ?, ?)", (id, name, fold, now))
    db.execute("INSERT INTO keys VALUES (?, ?, ?)", (hashed, id, now))
    return Player(id, name)


def add_key(db: sqlite3.Connection, hashed: str, player: str, now: float) -> Player | None:
    """The key joins `player` (leaving any other); the player's oldest past MAX_KEYS go."""
    db.execute("INSERT OR REPLACE INTO keys VALUES (?, ?, ?)", (hashed, player, now))
    db.execute(
        "DELETE FROM keys WHERE player = ? AND hash NOT IN (SELECT hash FROM keys "
        "WHERE player = ? ORDER BY added DESC, hash LIMIT ?)",
        (player, player, MAX_KEYS),
    )
    return row_player(db, "id", player)


def row_player(db: sqlite3.Connection, column: str, value: str) -> Player | None:
    """The player whose `column` (id or fold) is `value`, if any."""
    row = db.execute(f"SELECT id, name FROM players WHERE {column} = ?", (value,)).fetchone()
    return None if row is None else Player(str(row[0]), str(row[1]))


def new_id(db: sqlite3.Connection) -> str:
    """A player id no player has yet."""
    while True:
        id = "p:" + secrets.token_hex(8)
        if not db.execute("SELECT 1 FROM players WHERE id = ?", (id,)).fetchone():
            return id


def add_point(db: sqlite3.Connection, player: str, point: bytes) -> None:
    """One more rating point for `player`; the oldest past `MAX_HISTORY_POINTS` go."""
    row = db.execute("SELECT MAX(n) FROM history WHERE player = ?", (player,)).fetchone()
    n = 0 if row[0] is None else int(row[0]) + 1
    db.execute("INSERT INTO history VALUES (?, ?, ?)", (player, n, point))
    db.execute("DELETE FROM history WHERE player = ? AND n <= ?", (player, n - MAX_HISTORY_POINTS))


def trim(db: sqlite3.Connection, max_games: int) -> None:
    """The oldest games (and their index rows) past `max_games` go."""
    (count,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
    if count <= max_games:
        return
    old = [
        row[0]
        for row in db.execute(
            "SELECT id FROM games ORDER BY finished, id LIMIT ?", (count - max_games,)
        ).fetchall()
    ]
    for id in old:
        db.execute("DELETE FROM games WHERE id = ?", (id,))
        db.execute("DELETE FROM seated WHERE game = ?", (id,))
