"""Service settings: one typed object, from CLI flags or SIMULATOR_MOCK_* environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Settings of the simulator service.

    Every field can be set with an environment variable ``SIMULATOR_MOCK_<FIELD>`` (e.g.
    ``SIMULATOR_MOCK_RESULTS_DIR``) or the matching ``python -m simulator_mock`` flag.
    """

    model_config = SettingsConfigDict(env_prefix="SIMULATOR_MOCK_", extra="ignore")

    host: str = Field("127.0.0.1", description="Interface to bind; loopback unless told otherwise.")
    port: int = Field(8002, ge=0, le=65535, description="TCP port (0 = any free port).")
    results_dir: Path = Field(
        Path("results/simulator_mock"),
        description=(
            "Where each run's files are written (config_<run_id>.json, output_<run_id>.json, "
            "aspen_result_export_<run_id>.xlsx); the only folder /get-aspen-result and /download read."
        ),
    )
    schema_dir: Path | None = Field(
        None,
        description=(
            "Serve the schema documents of this folder (the real service's files: base_schema.json, "
            "blocks_<Type>_data.json, ...) on /api/schema instead of the packaged ones; configs are "
            "still validated against the packaged schemas."
        ),
    )
    workers: int = Field(
        2,
        ge=0,
        le=64,
        description="Engine worker processes; 0 runs simulations in one thread of the server process.",
    )
    max_body_bytes: int = Field(1024 * 1024, gt=0, description="Largest accepted request body (bytes).")
    request_timeout_s: float = Field(
        120.0, gt=0, description="A simulation still running after this is reported failed."
    )
    max_runs_kept: int = Field(
        10000,
        ge=1,
        description=(
            "Runs whose files stay in results_dir; past it the oldest run's files are deleted (runs are "
            "ordered by their time-stamped ids, also across restarts)."
        ),
    )
    results_cache_size: int = Field(
        1000, ge=0, description="Results documents kept in memory for GET /api/results/{run_id}."
    )
    log_level: str = Field("warning", description="uvicorn log level.")
