"""Tests of the framework adapters run offline: no socket leaves the machine.

``block_network`` makes every connection to a network address (and every DNS lookup)
fail at once, in every thread, so a framework that tries to reach its service fails
the test loudly (or gets a refusal it must tolerate) rather than waiting on a timeout.
The environment turns the frameworks' telemetry and tracing off.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

OFFLINE_ENV = {
    "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_API_KEY": "", "LANGCHAIN_API_KEY": "",
    "OTEL_SDK_DISABLED": "true", "LOGFIRE_SEND_TO_LOGFIRE": "false",
    "INSPECT_DISPLAY": "none", "DSP_CACHEBOOL": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "HF_HUB_OFFLINE": "1", "DO_NOT_TRACK": "1",
}


class NetworkBlocked(OSError):
    """A test tried to reach the network."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise NetworkBlocked(f"network access blocked in this test: {args[1:]!r}")


@pytest.fixture
def block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """No connection but to Unix sockets; yields the addresses that were tried."""
    tried: list[Any] = []
    real_connect = socket.socket.connect

    def connect(sock: socket.socket, address: Any) -> Any:
        if sock.family == socket.AF_UNIX:
            return real_connect(sock, address)
        tried.append(address)
        raise NetworkBlocked(f"network access blocked in this test: {address!r}")

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        tried.append(host)
        raise socket.gaierror(socket.EAI_NONAME, f"name lookup blocked in this test: {host}")

    for name, value in OFFLINE_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield tried
