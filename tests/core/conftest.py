"""Fixtures for the core tests: the real simulator mock served by uvicorn on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _support import mock_app, serve_in_thread


@pytest.fixture(scope="session")
def mock_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the simulator mock running in a background thread (one engine thread, results in tmp)."""
    with serve_in_thread(mock_app(tmp_path_factory.mktemp("core_mock_results"))) as port:
        yield f"http://127.0.0.1:{port}"
