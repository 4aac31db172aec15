#!/usr/bin/env bash
# docker-compose.yml's topology from Debian's packages on this machine, until Ctrl-C: Redis
# (append-only, no save, noeviction), two `allfives serve --redis` on loopback and nginx in
# front (deploy/nginx.conf.template rendered for nginx 1.22), every file in a temp dir.
#
# Usage: deploy/local.sh [--port 8765] [--servers 2] [--timeout 30] [-- SERVE OPTIONS...]
# Needs nginx and redis-server (apt-get install nginx redis-server) and `uv sync`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec uv run python -m deploy.topology "$@"
