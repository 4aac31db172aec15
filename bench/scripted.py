"""A scripted player over a real WebSocket, for the bench scripts that play through a server:
it sends requests with ids, waits for their answers, and keeps its room document."""

from __future__ import annotations

from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection

from protocol import messages as msg
from protocol.patch import ClientState


class Player:
    """A scripted player that keeps its room document (see the module docstring)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.state = ClientState()
        self.next_id = 0

    async def request(self, kind: str, **fields: Any) -> msg.AnyServerMessage:
        self.next_id += 1
        id = self.next_id
        await self.socket.send(msgspec.json.encode({"type": kind, "id": id, **fields}).decode())
        while True:
            message = await self.receive()
            if getattr(message, "id", None) == id:
                return message

    async def receive(self) -> msg.AnyServerMessage:
        message = msg.decode_server(await self.socket.recv())
        if isinstance(message, msg.Snapshot):
            self.state.on_snapshot(message)
        elif isinstance(message, msg.Change):
            self.state.on_patch(message)
        return message

    def my_turn(self) -> bool:
        document = self.state.document
        if document is None or document["phase"] != "playing":
            return False
        game = document["game"]
        return bool(game["turn"] == document["you"] and game["legal"])
