"""Command line: ``python -m simulator_mock --host 127.0.0.1 --port 8002`` starts the simulator service."""

from __future__ import annotations

import argparse
from pathlib import Path

from simulator_mock.settings import Settings


def parse_args(argv: list[str] | None = None) -> Settings:
    """Settings from command-line flags (unset flags keep SIMULATOR_MOCK_* environment values or defaults)."""
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="python -m simulator_mock",
        description=(
            "Aspen-Plus-compatible flowsheet simulation service with real thermodynamics (thermo + "
            "chemicals). "
            "Endpoints (those of the real Aspen service): GET /health, GET /api/schema/list, "
            "GET /api/schema?types=base,Heater, POST /run-aspen-simulation, "
            "GET /get-aspen-result?file_path=, GET /download?file_path=; "
            "extension: GET /api/results/{run_id}."
        ),
    )
    parser.add_argument("--host", default=defaults.host, help=f"interface to bind (default {defaults.host})")
    parser.add_argument("--port", type=int, default=defaults.port, help=f"TCP port (default {defaults.port})")
    parser.add_argument(
        "--results-dir",
        type=Path,
        default=defaults.results_dir,
        help=f"folder for each run's config, output and workbook files (default {defaults.results_dir})",
    )
    parser.add_argument(
        "--schema-dir",
        type=Path,
        default=defaults.schema_dir,
        help=(
            "serve the schema documents of this folder (base_schema.json, blocks_<Type>_data.json, as the "
            "real service names them) instead of the packaged ones; validation keeps the packaged schemas"
        ),
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=defaults.workers,
        help=f"engine worker processes; 0 = one thread in the server process (default {defaults.workers})",
    )
    parser.add_argument(
        "--max-runs-kept",
        type=int,
        default=defaults.max_runs_kept,
        help=f"runs whose files stay in the results folder, older ones deleted ({defaults.max_runs_kept})",
    )
    parser.add_argument(
        "--max-body-bytes", type=int, default=defaults.max_body_bytes, help="largest accepted request body"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=defaults.request_timeout_s,
        help="seconds before a simulation is abandoned",
    )
    parser.add_argument("--log-level", default=defaults.log_level, help="uvicorn log level (default warning)")
    args = parser.parse_args(argv)
    if args.schema_dir is not None and not args.schema_dir.is_dir():
        parser.error(f"--schema-dir {args.schema_dir}: no such folder")
    return Settings(
        host=args.host,
        port=args.port,
        results_dir=args.results_dir,
        schema_dir=args.schema_dir,
        max_runs_kept=args.max_runs_kept,
        workers=args.workers,
        max_body_bytes=args.max_body_bytes,
        request_timeout_s=args.timeout,
        log_level=args.log_level,
    )


def main(argv: list[str] | None = None) -> None:
    """Parse flags and serve until interrupted."""
    settings = parse_args(argv)
    import uvicorn

    from simulator_mock.app import create_app

    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
    )


if __name__ == "__main__":
    main()
