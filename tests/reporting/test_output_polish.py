"""Outputs a user reads: rounded summary floats, the GRPO curve's axes, the services' own logs, tables that
fit 80 columns, plots whose marks are explained."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from aspen_rl.reporting.run_report import rounded, write_summary


def test_summary_floats_are_rounded(tmp_path: Path) -> None:
    summary = {
        "a": 0.8800000000000001,
        "b": [0.6000000000000001, 5.494246640000711],
        "c": {"d": 1e-12},
        "n": 3,
    }
    data = json.loads(write_summary(tmp_path, summary).read_text(encoding="utf-8"))
    assert data == {"a": 0.88, "b": [0.6, 5.49425], "c": {"d": 1e-12}, "n": 3}
    assert rounded(float("nan")) != rounded(float("nan"))  # left as is


def test_grpo_curve_has_integer_steps_and_a_0_to_1_axis(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from aspen_rl.algorithms.grpo.metrics import style_reward_axes

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0.41, 0.42, 0.415])
    style_reward_axes(ax)
    fig.canvas.draw()
    assert ax.get_ylim() == (0.0, 1.0)
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks)
    plt.close(fig)


def test_store_uvicorn_lines_go_to_training_log_not_the_console(tmp_path: Path, capsys) -> None:
    import uvicorn

    from aspen_rl.run_logging import log_to_file

    root = logging.getLogger()
    saved = list(root.handlers), root.level
    try:
        log_to_file(tmp_path / "training.log")
        uvicorn.Config(app=lambda *a: None, log_level="info")  # what the store server does
        logging.getLogger("uvicorn.error").info("Uvicorn running on http://127.0.0.1:1")
        logging.getLogger("uvicorn.access").info("GET /poll 200")
        for handler in root.handlers:
            handler.flush()
        log = (tmp_path / "training.log").read_text(encoding="utf-8")
        assert "Uvicorn running" in log and "GET /poll" not in log
        captured = capsys.readouterr()
        assert "Uvicorn running" not in captured.err + captured.out
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])


def test_service_logs_are_written(tmp_path: Path) -> None:
    from aspen_rl.subprocesses import mock_simulator, scripted_policy
    from aspen_rl.tasks.datasets import split_path

    with mock_simulator(tmp_path / "results", log_path=tmp_path / "simulator.log"):
        pass
    with scripted_policy([split_path("train")], error_rate=0.0, seed=0, log_path=tmp_path / "policy.log"):
        pass
    assert "Uvicorn running" in (tmp_path / "simulator.log").read_text(encoding="utf-8")
    policy_log = (tmp_path / "policy.log").read_text(encoding="utf-8")
    assert "offline scripted policy: 10 task(s)" in policy_log and "Uvicorn running" in policy_log


def test_stack_import_reports_what_loads_and_its_seconds(monkeypatch) -> None:
    import io

    from rich.console import Console

    from aspen_rl import stack_import

    monkeypatch.setattr(stack_import, "AGENT_STACK", ("json", "aspen_rl.records"))
    console = Console(file=io.StringIO(), width=120)
    stack_import.StackImport().wait(console)
    assert "Loaded Agent Lightning, AutoGen and LiteLLM (" in console.file.getvalue()

    monkeypatch.setattr(stack_import, "AGENT_STACK", ("aspen_rl.no_such_module",))
    loader = stack_import.StackImport()
    try:
        loader.wait(Console(file=io.StringIO()))
    except ModuleNotFoundError as exc:
        assert "no_such_module" in str(exc)
    else:
        raise AssertionError("a failed import must surface in the main thread")


def test_the_reward_table_fits_80_columns_whole() -> None:
    from rich.console import Console

    from aspen_rl.reporting.console import summary_table

    stats = {
        "count": 300,
        "success_rate": 0.967,
        "errors": 10,
        "total": {"mean": 0.912, "min": 0.5, "max": 1.0},
        "completion": {"mean": 0.95},
        "tool_efficiency": {"mean": 0.88},
        "response_quality": {"mean": 0.9},
    }
    summary = {"validation": {"all": stats, "medium": stats}, "custom": {"hard": stats}}
    console = Console(width=80, record=True)
    console.print(summary_table(summary))
    text = console.export_text()
    assert "…" not in text  # no header or cell cut short
    assert "validation  medium  300  97%   10  0.912  0.50-1.00  0.950  0.880   0.900" in text


def test_the_reward_plot_has_a_legend_for_median_mean_and_points() -> None:
    import matplotlib.pyplot as plt

    from aspen_rl.records import RolloutRecord
    from aspen_rl.reporting.plots import reward_distribution_figure
    from aspen_rl.reward.base import RewardBreakdown

    records = [
        RolloutRecord(
            rollout_id=f"r{i}", task_id="t", split="train", difficulty="easy", reward=RewardBreakdown(total=t)
        )
        for i, t in enumerate([0.2, 0.5, 0.9, 1.0])
    ]
    fig = reward_distribution_figure(records)
    legend = fig.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        "median",
        "mean",
        "quartiles (whiskers 1.5 IQR)",
        "one rollout",
    ]
    plt.close(fig)


def test_a_span_upload_cut_by_a_signal_is_one_log_line_not_a_traceback() -> None:
    """At a signal a runner can die mid-upload; uvicorn logs starlette's ClientDisconnect (inside anyio's
    exception group) with a traceback: the run's log keeps one line instead."""
    import sys

    from starlette.requests import ClientDisconnect

    from aspen_rl.run_logging import _StoreRaceFilter

    try:
        raise BaseExceptionGroup("task group", [ClientDisconnect()])
    except BaseExceptionGroup:
        record = logging.LogRecord(
            "uvicorn.error", logging.ERROR, __file__, 1, "Exception in ASGI application", None, sys.exc_info()
        )
    assert _StoreRaceFilter().filter(record) and record.exc_info is None
    assert record.getMessage().endswith("; client gone)")
    other = logging.LogRecord(
        "uvicorn.error", logging.ERROR, __file__, 1, "boom", None, (ValueError, ValueError("x"), None)
    )
    _StoreRaceFilter().filter(other)
    assert other.exc_info is not None  # any other error keeps its traceback
