#!/usr/bin/env bash
# docker-compose.yml's topology from Debian's packages on this machine, until Ctrl-C: Redis
# (append-only, no save, noeviction), two `allfives serve --redis` on loopback and nginx in
# front (deploy/nginx.conf.template rendered for nginx 1.22), every file in a temp dir.
#
# Usage: deploy/local.sh [--port 8765] [--servers 2] [--timeout 30] [-- SERVE OPTIONS...]
# Needs nginx and redis-server (apt-get install nginx redis-server) and uv.
#
# The environment's own python is exec'd, not `uv run`: uv does not pass SIGKILL on to its child,
# so `kill -9` of a `uv run` process leaves the program running and holding its ports. With
# exec, this script's PID is the topology's, and every signal reaches it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
uv sync --locked --quiet
exec "${UV_PROJECT_ENVIRONMENT:-.venv}/bin/python" -m deploy.topology "$@"
