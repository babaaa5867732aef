"""The service's answers as the real service writes them: JSON with sorted keys, its error bodies, and its
Windows file paths."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from fastapi.responses import Response

from simulator_mock.service.worker import RUN_FAILED, answer_json

#: The real service's folders (``BASE_DIR = D:/aspen`` on its Windows box) by the answer key they fill.
WINDOWS_FOLDERS = {
    "config_file_path": "configfile",
    "aspen_file_path": "bkpfile",
    "result_file_path": "resultfile",
}
WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]aspen[\\/](?:configfile|bkpfile|resultfile)[\\/]([^\\/]+)$", re.I)
WINDOWS_ROOT = "D:\\aspen"


def windows_answer(body: bytes) -> bytes:
    """A run answer with its file paths as the real service on Windows writes them
    (``D:\\aspen\\resultfile\\aspen_result_export_<id>.xlsx``)."""
    answer = orjson.loads(body)
    for key, folder in WINDOWS_FOLDERS.items():
        if isinstance(answer.get(key), str):
            answer[key] = f"{WINDOWS_ROOT}\\{folder}\\{Path(answer[key]).name}"
    return answer_json(answer)


def json_response(content: Any, status: int = 200) -> Response:
    """A JSON response, keys sorted as the real service's Flask sorts them."""
    return Response(answer_json(content), status_code=status, media_type="application/json")


def now() -> str:
    """The ``timestamp`` of an answer (ISO 8601, UTC)."""
    return datetime.now(UTC).isoformat()


def error_response(status: int, message: str, **extra: Any) -> Response:
    """The real service's error body outside the run route: ``{error, timestamp}`` (+ extra keys)."""
    return json_response({"error": message, **extra, "timestamp": now()}, status)


def run_failure(error_code: str, message: str) -> Response:
    """A run that broke down before the engine answered (timeout, crashed worker): HTTP 201, real shape."""
    body = {
        "success": False,
        "error_type": RUN_FAILED,
        "error_code": error_code,
        "error_message": f"{error_code}: {message}",
    }
    return json_response(body, 201)
