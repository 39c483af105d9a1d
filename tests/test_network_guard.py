"""The suite-wide guard: tests reach loopback only. It refuses before any packet is sent."""

from __future__ import annotations

import socket

import pytest


def test_non_loopback_connections_are_refused_before_sending() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(ConnectionRefusedError, match="may not reach the network"):
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, and never tried here
    finally:
        sock.close()


def test_loopback_is_allowed() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        with socket.create_connection(server.getsockname(), timeout=5):
            pass
    finally:
        server.close()
