"""The outer loop in miniature, from a tiny model on disk: serve, chat, group, step, sync, save, resume."""

from __future__ import annotations

from pathlib import Path

import openai

from aspen_rl.algorithms.grpo import GRPOTrainer, MetricsSink, latest_checkpoint, load_grpo_config
from aspen_rl.algorithms.grpo.groups import FinishedRollout, group_samples
from aspen_rl.llm import ChatCompletionServer, build_engine
from aspen_rl.llm.tiny_bytes import save_tiny_chat_model


def test_one_step_of_the_loop_then_resume(tmp_path: Path) -> None:
    model_dir = save_tiny_chat_model(tmp_path / "tiny-chat")
    cfg = load_grpo_config(
        "configs/grpo.yaml",
        model=str(model_dir),
        device="cpu",
        group_size=2,
        tasks_per_step=2,
        max_response_tokens=8,
        lora={"r": 4, "alpha": 8},
        checkpoint_dir=str(tmp_path / "models"),
        run_name="smoke",
        tensorboard=False,
    )
    trainer = GRPOTrainer(cfg)
    engine = build_engine(cfg, model=trainer.model, tokenizer=trainer.tokenizer)
    finished = []
    with ChatCompletionServer.from_config(cfg, engine) as server:
        for task in ("heater", "flash"):
            for g in range(cfg.group_size):
                rollout_id = f"{task}-{g}"
                client = openai.OpenAI(
                    base_url=f"{server.base_url}/rollout/{rollout_id}/attempt/a1/v1", api_key="-"
                )
                messages = [{"role": "user", "content": f"Simulate a {task}."}]
                reply = client.chat.completions.create(model=cfg.served_model_name, messages=messages)
                messages += [
                    {"role": "assistant", "content": reply.choices[0].message.content or ""},
                    {"role": "user", "content": "And the duty?"},
                ]
                client.chat.completions.create(model=cfg.served_model_name, messages=messages)
                finished.append(FinishedRollout(task, rollout_id, reward=float(g), attempt_id="a1"))
        groups = group_samples(server.recorder, finished, max_tokens=cfg.max_trajectory_tokens)
    assert [len(g) for g in groups] == [2, 2]
    assert all(s.meta["calls"] == 2 for g in groups for s in g)

    metrics = trainer.step(groups)
    trainer.sync_to_engine(engine)
    assert metrics["rollouts"] == 4 and metrics["tokens"] > 0 and metrics["skipped"] == 0
    # random bytes rarely decode and re-encode to the same ids, so breaks are counted, not required
    assert metrics["prefix_breaks"] == sum(s.prefix_breaks for g in groups for s in g)
    sink = MetricsSink(tmp_path / "run", tensorboard=False)
    sink.log(trainer.global_step, metrics)
    assert sink.plot_rewards().is_file()
    saved = trainer.save_checkpoint(cfg.checkpoint_path(trainer.global_step))

    resumed = GRPOTrainer(cfg)
    assert latest_checkpoint(cfg.run_dir()) == saved
    resumed.load_checkpoint(saved)
    assert resumed.global_step == 1
    assert resumed.step(groups)["step"] == 2
