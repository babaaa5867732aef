"""Demonstration files round-trip whatever text a transcript holds."""

from __future__ import annotations

from pathlib import Path

from aspen_rl.datagen.demos import load_demos, save_demos


def test_a_transcript_with_unicode_line_separators_reads_back_whole(tmp_path: Path) -> None:
    # save_demos writes UTF-8 as is (ensure_ascii=False), so U+2028, U+2029 and U+0085 stay raw in a line:
    # they must not end it
    demos = [
        {"task_id": "a", "messages": [{"role": "user", "content": "T\u2028= 20\u2029°C\x85ok\nnext"}]},
        {"task_id": "b", "messages": []},
    ]
    path = tmp_path / "demos.jsonl"
    save_demos(demos, path)
    assert load_demos(path) == demos
