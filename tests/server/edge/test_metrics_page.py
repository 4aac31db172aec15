"""`/metrics` as a scraper reads it: the page parses as Prometheus text and holds every metric it
held before it was written by prometheus_client, each with its type and labels (dashboards
depend on them). Real servers, real sockets; with Redis, a real redis-server."""

from __future__ import annotations

import asyncio

import prometheus_client
import pytest
from cluster_helpers import cluster_config
from prometheus_client.parser import text_string_to_metric_families
from redis_server import RedisServer
from server_helpers import fast_config, http_get, metrics_of
from ws_client_helpers import seat_players

from server.app import Server, run_server

#: Every metric of the page, as its `# TYPE` line names it: its type and its labels.
METRICS: dict[str, tuple[str, frozenset[str]]] = {
    name: (kind, frozenset(labels))
    for name, kind, labels in [
        ("allfives_rooms", "gauge", ()),
        ("allfives_rooms_playing", "gauge", ()),
        ("allfives_connections", "gauge", ()),
        ("allfives_matches_started_total", "counter", ()),
        ("allfives_matches_finished_total", "counter", ()),
        ("allfives_moves_total", "counter", ()),
        ("allfives_frames_sent_total", "counter", ()),
        ("allfives_slow_clients_dropped_total", "counter", ()),
        ("allfives_errors_total", "counter", ("code",)),
        ("allfives_gc_passes_total", "counter", ("generation",)),
        ("allfives_gc_seconds_total", "counter", ("generation",)),
        ("allfives_gc_collected_total", "counter", ("generation",)),
        ("allfives_gc_frozen_objects", "gauge", ()),
        ("allfives_gc_longest_seconds", "gauge", ()),
        ("allfives_http_refused_total", "counter", ("status",)),
        ("allfives_games_archived_total", "counter", ()),
        ("allfives_rating_conflicts_total", "counter", ()),
        ("allfives_api_answered_total", "counter", ()),
        ("allfives_api_refused_total", "counter", ()),
    ]
}
#: With Redis only: other processes' changes taken, by kind.
ADOPTED = {"allfives_changes_adopted_total": ("counter", frozenset({"kind"}))}


async def page_of(server: Server) -> str:
    status, page = await asyncio.to_thread(http_get, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200, page
    return page


def metrics_on(page: str) -> dict[str, tuple[str, frozenset[str]]]:
    """Each metric of a page, parsed by prometheus_client: its type and the labels its samples
    carry. Every sample is named as its metric (no `_created` or other extra series)."""
    found = {}
    for family in text_string_to_metric_families(page):
        # The parser names a counter without its `_total`; the page's `# TYPE` line has it.
        name = f"{family.name}_total" if family.type == "counter" else family.name
        assert family.samples, f"{name} has no sample"
        assert {sample.name for sample in family.samples} == {name}
        labels = frozenset(key for sample in family.samples for key in sample.labels)
        found[name] = (family.type, labels)
    return found


async def test_the_page_parses_and_holds_every_metric_with_its_type_and_labels() -> None:
    async with run_server(fast_config()) as server:
        clients = await seat_players(server.url, 2, 1, "easy", target=50)
        await clients[0].error_for("play", tile="9-9")  # an error code counted
        assert metrics_on(await page_of(server)) == METRICS
        values = await metrics_of(server)
        assert values['allfives_errors_total{code="invalid"}'] == 1
        assert values["allfives_rooms"] == values["allfives_connections"] == 1
        for client in clients:
            await client.close()


@pytest.mark.redis
async def test_with_redis_the_page_also_counts_the_changes_taken_by_kind(
    redis_server: RedisServer,
) -> None:
    async with run_server(cluster_config(redis_server)) as server:
        clients = await seat_players(server.url, 2, 1, "easy", target=50)
        await clients[0].error_for("play", tile="9-9")  # an error code counted
        assert metrics_on(await page_of(server)) == METRICS | ADOPTED
        values = await metrics_of(server)
        kinds = [
            f'allfives_changes_adopted_total{{kind="{k}"}}' for k in ("move", "state", "misfit")
        ]
        assert [values[kind] for kind in kinds] == [0, 0, 0]  # alone on its Redis
        for client in clients:
            await client.close()


async def test_each_server_has_its_own_page_and_the_process_wide_registry_none() -> None:
    async with run_server(fast_config()) as busy, run_server(fast_config()) as idle:
        clients = await seat_players(busy.url, 2, 1, "easy", target=50)
        assert (await metrics_of(busy))["allfives_rooms"] == 1
        assert (await metrics_of(idle))["allfives_rooms"] == 0
        everywhere = prometheus_client.generate_latest(prometheus_client.REGISTRY).decode()
        assert "allfives_" not in everywhere
        for client in clients:
            await client.close()
