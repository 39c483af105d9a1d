"""Test doubles for Forge and for code built on it: a scripted backend, a scripted driver and a
fake Chat Completions server on loopback.

This is the top layer of the import contracts: it may import anything, and no production module
imports it. The CLI is pointed at a scripted backend through ``forge_cli.cli.build.
set_backend_override`` (the test suite does this in ``tests/helpers/testhook.py``).
"""
