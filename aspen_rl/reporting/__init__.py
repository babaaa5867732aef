"""Run reports: rollout records to JSONL, summary statistics, console tables and plots."""

from aspen_rl.reporting.run_report import RunReport, load_records
from aspen_rl.reporting.summary import summarize

__all__ = ["RunReport", "load_records", "summarize"]
