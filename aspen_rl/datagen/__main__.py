"""``python -m aspen_rl.datagen``: build task files (generate, regenerate, stats, demos, baseline)."""

from __future__ import annotations

import sys

from aspen_rl.datagen.cli import main

if __name__ == "__main__":
    sys.exit(main())
