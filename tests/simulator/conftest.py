"""Fixtures for the simulator tests: the real service on a free port, an in-process client."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from _support import LiveMock, in_process_client
from fastapi.testclient import TestClient


@pytest.fixture(scope="session")
def live_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveMock]:
    """The real service started with its CLI (uvicorn) on a free loopback port, one engine worker."""
    with LiveMock(tmp_path_factory.mktemp("live"), "--workers", "1", "--log-level", "warning") as mock:
        yield mock


@pytest.fixture(scope="session")
def http(live_service: LiveMock) -> Iterator[httpx.Client]:
    """An httpx client on the live service."""
    with httpx.Client(base_url=live_service.url, timeout=60.0) as client:
        yield client


@pytest.fixture(scope="session")
def inproc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app in this process (simulations in one thread), through Starlette's TestClient."""
    with in_process_client(tmp_path_factory.mktemp("inproc_results")) as client:
        yield client
