"""``python -m aspen_rl`` is ``python -m aspen_rl.train``."""

import sys

from aspen_rl.train import main

sys.exit(main())
