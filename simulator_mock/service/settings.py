"""Service settings: one typed object, from CLI flags or SIMULATOR_MOCK_* environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
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
        30.0,
        gt=0,
        description=(
            "Per-run time budget (s): a simulation still running after this fails with error Timeout, "
            "the config's fault. Keep run budget + queue_wait_s + 10 below the client's timeout "
            "(aspen_rl simulator_timeout_s, 90 by default) so a slow config is scored, not lost."
        ),
    )
    queue_wait_s: float = Field(
        20.0,
        gt=0,
        description="Longest wait (s) for a free engine worker; a run not started by then gets 503 (retry).",
    )
    workbook_read_timeout_s: float = Field(
        20.0,
        gt=0,
        description=(
            "Longest time (s) GET /get-aspen-result may spend reading a workbook; past it the worker is "
            "replaced and the answer is 422."
        ),
    )
    body_timeout_s: float = Field(
        10.0, gt=0, description="Longest time (s) to receive a request body; a stalled upload gets 408."
    )
    max_in_flight: int = Field(
        64, ge=1, le=4096, description="Runs queued or running at once; more get 503 (retry)."
    )
    retention_max_age_s: float = Field(
        0.0, ge=0, description="Runs older than this (s) are deleted (0 = no age limit)."
    )
    max_stored_input_bytes: int = Field(
        64 * 1024,
        ge=0,
        description="Stored copies of request bodies larger than this are replaced by a note (0 = no cap).",
    )
    token: SecretStr | None = Field(
        None, description="Shared token every request but GET /health must carry in X-Aspen-Token."
    )
    max_runs_kept: int = Field(
        10000,
        ge=1,
        description=(
            "Runs whose files stay in results_dir; past it the oldest run's files are deleted (runs are "
            "ordered by when they ran; those found on disk, left by an earlier service or by a worker that "
            "died, by when their config was written)."
        ),
    )
    results_cache_size: int = Field(
        1000, ge=0, description="Results documents kept in memory for GET /api/results/{run_id}."
    )
    log_level: str = Field("warning", description="uvicorn log level.")
    run_delay_s: float = Field(
        0.0,
        ge=0,
        le=600,
        description="Seconds added to every simulation's answer, to rehearse a real Aspen's pace (0 = none).",
    )
    windows_paths: bool = Field(
        False,
        description=(
            "Answer file paths as the real service on Windows does (D:\\aspen\\resultfile\\<name>, "
            "configfile, bkpfile) and serve them back, so an agent practises echoing backslash paths."
        ),
    )
    ssl_certfile: Path | None = Field(
        None, description="PEM certificate (chain): serve HTTPS, as the real service does (with ssl_keyfile)."
    )
    ssl_keyfile: Path | None = Field(None, description="PEM private key of ssl_certfile.")
    parent_pid: int | None = Field(
        None,
        gt=0,
        description=(
            "Stop when this process ends, however it ends (SIGKILL included): set by a program that starts "
            "the service for its own use (aspen_rl does). Unset, the service outlives whoever started it."
        ),
    )

    @field_validator("token")
    @classmethod
    def _token_not_blank(cls, token: SecretStr | None) -> SecretStr | None:
        """An empty or blank token would fail open (no check at all): refused, never silently ignored."""
        if token is not None and not token.get_secret_value().strip():
            raise ValueError(
                "the token is empty or blank, which would let every request through; give a real token "
                "or unset SIMULATOR_MOCK_TOKEN / drop --token-file"
            )
        return token
