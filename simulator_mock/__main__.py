"""``python -m simulator_mock --host 127.0.0.1 --port 8002`` starts the simulator service."""

from __future__ import annotations

import sys

from simulator_mock.service.cli import main

if __name__ == "__main__":
    sys.exit(main())
