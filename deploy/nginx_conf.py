"""deploy/nginx.conf.template rendered two ways: for docker-compose.yml and for this machine.

The template's `@NAME@` lines are replaced by lines of their own, each with the text around the
placeholder (or dropped when there are none):

- `compose`: servers by their compose names, re-resolved through Docker's DNS (`zone`, `resolve`,
  nginx 1.27.3 or later); the committed deploy/nginx.conf is this rendering
  (`python -m deploy.nginx_conf compose > deploy/nginx.conf`; tests/deploy/test_deploy_nginx.py checks);
- `local`: Debian's nginx (1.22 here: no `resolve`) in front of servers on loopback ports, its
  files under one directory, its sockets to the servers from `PROXY_ADDRESS` (`proxy_bind`), the
  one address the servers take X-Real-IP from (deploy/topology.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
#: The committed rendering for docker-compose.yml.
COMPOSE_CONF = Path(__file__).with_name("nginx.conf")
#: The loopback address nginx's sockets to the servers come from on this machine.
PROXY_ADDRESS = "127.0.0.2"
#: How upstream servers are left out after a failure (a 503 or a refused connection).
FAILS = "max_fails=1 fail_timeout=5s"


def fill(template: str, values: dict[str, list[str]]) -> str:
    """The template with each `@NAME@` line replaced by `values[NAME]`, one line each."""
    lines: list[str] = []
    for line in template.splitlines():
        stripped = line.strip()
        names = [name for name in values if f"@{name}@" in stripped]
        if not names:
            lines.append(line)
            continue
        (name,) = names
        prefix, suffix = line.split(f"@{name}@")
        lines += [(prefix + value + suffix).rstrip() for value in values[name]]
    unfilled = [line for line in lines if "@" in line and line.count("@") >= 2]
    if unfilled:
        raise ValueError(f"placeholders left in the template: {unfilled}")
    return "\n".join(lines) + "\n"


def compose() -> str:
    """The rendering for docker-compose.yml (deploy/nginx.conf)."""
    return fill(
        TEMPLATE.read_text(),
        {
            "RENDERING": [
                "For docker-compose.yml, generated from deploy/nginx.conf.template: edit the",
                "template, then `uv run python -m deploy.nginx_conf compose > deploy/nginx.conf`.",
                "Server names are re-resolved through Docker's DNS (`resolver` + `resolve`, nginx",
                "1.27.3 or later), so a recreated container is found at its new address without",
                "restarting nginx. deploy/local.sh renders the same template for an older nginx.",
            ],
            "MAIN": [],
            "HTTP": [
                "# Docker's embedded DNS; names are looked up again every 5 s.",
                "resolver 127.0.0.11 valid=5s ipv6=off;",
                "",
            ],
            "UPSTREAM": [
                "zone allfives 64k;",
                f"server server1:8765 resolve {FAILS};",
                f"server server2:8765 resolve {FAILS};",
            ],
            "LISTEN": ["8765"],
            "PROXY": [],
        },
    )


def local(directory: Path, port: int, servers: list[int]) -> str:
    """The rendering for this machine: nginx on 127.0.0.1:`port`, servers on loopback ports."""
    files = directory.resolve()
    return fill(
        TEMPLATE.read_text(),
        {
            "RENDERING": [
                "For this machine (deploy/local.sh), generated from deploy/nginx.conf.template:",
                "servers on loopback ports, every file of nginx's under its directory.",
            ],
            "MAIN": [
                "daemon off;",
                f"pid {files}/nginx.pid;",
                f"error_log {files}/error.log notice;",
            ],
            "HTTP": [
                f"access_log {files}/access.log upstreams;",
                *(
                    f"{kind}_temp_path {files}/{kind}-temp;"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
                ),
                "",
            ],
            "UPSTREAM": [f"server 127.0.0.1:{server} {FAILS};" for server in servers],
            "LISTEN": [f"127.0.0.1:{port}"],
            "PROXY": [
                "# The one address the servers take X-Real-IP from (their --trust-proxy).",
                f"proxy_bind {PROXY_ADDRESS};",
            ],
        },
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["compose"]:
        sys.exit("usage: python -m deploy.nginx_conf compose > deploy/nginx.conf")
    sys.stdout.write(compose())
