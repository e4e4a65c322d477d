"""Before a command's first sample: is the model server a spec names there at all?

A refused or unknown server would otherwise fail every sample (each after its retries) and
be reported only after the metric lines. `check_servers` opens one TCP connection to the
host and port of each ``openai:MODEL@URL`` spec (or OPENAI_BASE_URL) and raises
`ServerUnreachable` naming the URL and the option to fix; anything that answers passes (the
protocol is the backend's business). A spec whose requests go through a proxy is not
checked: the proxy, not this machine, reaches the server.
"""

from __future__ import annotations

import os
import socket
import urllib.request
from urllib.parse import urlsplit

__all__ = ["ServerUnreachable", "check_servers"]

TIMEOUT_S = 5.0
"""How long a server may take to accept the connection."""


class ServerUnreachable(ConnectionError):
    """Nothing accepts connections at a model spec's URL; `option` is where it was given."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


def check_servers(*specs: tuple[str, str | None]) -> None:
    """Check each (option, spec) pair whose spec names an OpenAI-compatible server."""
    for option, spec in specs:
        url = _server_url(spec) if spec else None
        if url is not None:
            _connect(url, option)


def _server_url(spec: str) -> str | None:
    from chartproof.models.registry import SpecError, parse_spec

    try:
        parsed = parse_spec(spec)
    except SpecError:  # a config file, or a mistake the command reports itself
        return None
    if parsed.kind != "openai":
        return None
    return parsed.base_url or os.environ.get("OPENAI_BASE_URL") or None


def _connect(url: str, option: str) -> None:
    parts = urlsplit(url)
    host = parts.hostname
    if not host or parts.scheme not in ("http", "https"):
        return  # the backend says what is wrong with such a URL
    if parts.scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(host):
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return
    try:
        with socket.create_connection((host, port), timeout=TIMEOUT_S):
            return
    except ConnectionRefusedError:
        why = f"connection refused (nothing listens on {host}:{port})"
    except socket.gaierror:
        why = f"unknown host {host!r}"
    except TimeoutError:
        why = f"no answer from {host}:{port} within {TIMEOUT_S:.0f} s"
    except OSError as e:
        why = e.strerror or str(e)
    raise ServerUnreachable(f"{url}: {why}", option)
