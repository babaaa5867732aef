"""``python -m aspen_rl.llm.tiny_bytes OUT_DIR`` writes a loadable tiny chat model."""

from __future__ import annotations

from pathlib import Path

from aspen_rl.llm.tiny_bytes import main


def test_tiny_entry_writes_a_model_folder(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "tiny-chat")]) == 0
    assert (tmp_path / "tiny-chat" / "config.json").is_file()
    assert (tmp_path / "tiny-chat" / "tokenizer_config.json").is_file()
    assert "--config configs/grpo_tiny_cpu.yaml" in capsys.readouterr().out
