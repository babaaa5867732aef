"""Run reports: rollout records to JSONL, summary statistics, console tables and plots."""

from aspen_rl.reporting.run_report import RunReport, load_records, write_summary
from aspen_rl.reporting.summary import completion, summarize

__all__ = ["RunReport", "completion", "load_records", "summarize", "write_summary"]
