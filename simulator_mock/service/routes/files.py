"""Routes that hand out a run's files, only from the results folder: ``GET /get-aspen-result`` (the workbook
as pandas reads it) and ``GET /download`` (of the real service's allowed types)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from simulator_mock.service.answers import WINDOWS_PATH, error_response
from simulator_mock.service.state import Service, ServiceDep

router = APIRouter()

#: The real /download route's allowed file types and their content types.
DOWNLOAD_TYPES: dict[str, str] = {
    ".bkp": "application/octet-stream",
    ".apw": "application/octet-stream",
    ".json": "application/json",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xls": "application/vnd.ms-excel",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".out": "text/plain",
    ".csv": "text/csv",
}


async def located(service: Service, file_path: str | None) -> Path | Response:
    """The file a ``file_path`` query names, or the real service's 400 / 404 answer (403 outside)."""
    if not file_path:
        return error_response(400, "缺少必需参数: file_path")
    windows = WINDOWS_PATH.match(file_path) if service.settings.windows_paths else None
    path = service.confine(str(service.results_root / windows.group(1)) if windows else file_path)
    if path is None and not Path(file_path).is_absolute():
        # The real service looks a relative path up in its working directory and finds nothing there.
        return error_response(404, f"文件不存在: {file_path}")
    if path is None:
        return error_response(403, f"file_path is outside the simulator's results folder: {file_path}")
    try:
        exists = await asyncio.to_thread(path.exists)
    except OSError:
        exists = False
    if not exists:
        return error_response(404, f"文件不存在: {file_path}")
    return path


@router.get("/get-aspen-result")
async def get_aspen_result(service: ServiceDep, file_path: str | None = None) -> Response:
    """A results workbook (a run's ``result_file_path``) as JSON: every sheet, as pandas reads it."""
    path = await located(service, file_path)
    if isinstance(path, Response):
        return path
    assert file_path is not None
    try:
        content = await service.read_workbook(path, file_path)
    except Exception as exc:
        return error_response(422, f"读取Excel文件失败: {exc}", file_path=file_path)
    if isinstance(content, Response):
        return content
    return Response(content, media_type="application/json")


@router.get("/download")
async def download(service: ServiceDep, file_path: str | None = None) -> Response:
    """A file of the results folder (config, output or workbook of a run), as an attachment."""
    path = await located(service, file_path)
    if isinstance(path, Response):
        return path
    if not path.is_file():
        return error_response(400, f"路径不是文件: {file_path}")
    suffix = path.suffix.lower()
    if suffix not in DOWNLOAD_TYPES:
        allowed = sorted(DOWNLOAD_TYPES)
        return error_response(403, f"不允许下载此类型文件: {path.suffix}", allowed_types=allowed)
    return FileResponse(path, media_type=DOWNLOAD_TYPES[suffix], filename=path.name)
