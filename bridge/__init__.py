"""The bridge between the engine's values and the wire and file formats (engine <-> protocol).

- `bridge.convert`: a seat's engine `View` and the engine's events as protocol views and events;
  wire moves as engine values.
- `bridge.records`: an engine match as an `allfives-record/1` record and a record replayed back
  into a match. The rules need no conversion: the engine plays by protocol's one Rules type.

It imports only `engine` and `protocol`, so the server and the offline commands (`allfives
replay`, `allfives analyze`) share one copy of these conversions without one importing the other.
Nothing is imported here, so `import bridge.records` loads no more than it needs.
"""
