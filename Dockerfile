# The allfives server: python:3.11-slim with the locked runtime dependencies, no dev tools.
FROM python:3.11-slim

RUN pip install --no-cache-dir --root-user-action=ignore uv \
    && useradd --system --create-home --uid 10001 allfives

WORKDIR /app
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    PATH=/app/.venv/bin:$PATH \
    ALLFIVES_REDIS_URL=redis://redis:6379/0

# Dependencies first, so code changes do not re-install them.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --locked --no-dev --no-install-project

COPY allfives/ allfives/
COPY engine/ engine/
COPY protocol/ protocol/
COPY bridge/ bridge/
COPY server/ server/
COPY clients/ clients/
RUN uv sync --locked --no-dev

USER allfives
EXPOSE 8765
# Ready: accepting WebSocket connections and Redis answering (GET /readyz; /healthz is liveness).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/readyz', timeout=2)"]
# Shell form only to expand ALLFIVES_REDIS_URL (docker-compose sets it per service); exec keeps signals.
CMD ["sh", "-c", "exec allfives serve --host 0.0.0.0 --port 8765 --redis \"$ALLFIVES_REDIS_URL\""]
