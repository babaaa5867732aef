"""``python -m aspen_rl`` is ``python -m aspen_rl.train``."""

from aspen_rl.train import run_cli

run_cli()
