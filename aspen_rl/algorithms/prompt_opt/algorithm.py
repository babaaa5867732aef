"""The prompt optimizer as an Agent Lightning algorithm: beam search with rollouts through the store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from agentlightning.algorithm import FastAlgorithm

from aspen_rl.agent.prompts import SYSTEM_PROMPT_RESOURCE, default_system_prompt
from aspen_rl.algorithms.prompt_opt.config import PromptOptConfig, prompt_opt_config
from aspen_rl.algorithms.prompt_opt.critic import CriticProposer, PromptCritic
from aspen_rl.algorithms.prompt_opt.edits import EditProposer
from aspen_rl.algorithms.prompt_opt.report import (
    BEST_PROMPT_FILE,
    HISTORY_FILE,
    PLOT_FILE,
    beam_table,
    history_json,
    plot_best_per_round,
    write_best_prompt,
    write_history,
)
from aspen_rl.algorithms.prompt_opt.search import (
    BeamSearch,
    Candidate,
    Evaluation,
    ProposeFn,
    RoundSummary,
    SearchResult,
)
from aspen_rl.algorithms.rollouts import publish, run_tasks
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

logger = logging.getLogger(__name__)


class PromptOptAlgorithm(FastAlgorithm):
    """Searches system prompts: candidates scored on train rollouts, the beam chosen on validation.

    Every candidate is published as a ``PromptTemplate`` resource named ``system_prompt`` next to the
    other resources it was given (the ``LLM``), and run through the store like any rollout. Writes
    ``best_prompt.md``, ``history.json`` and ``best_score_per_round.png`` into ``prompts_dir``
    (the first two after every round, so an interrupted search keeps what it found). With test
    tasks, the best prompt is also run on them.
    A ``FastAlgorithm``, so it serves both ``Trainer.dev`` and ``Trainer.fit``.

    Args:
        resources: Resources of every rollout; a ``system_prompt`` among them is the seed prompt
            (else the shipped default).
        report: Where every rollout record, the progress bars and tables go.
        config: Search settings.
        propose: Makes children of a parent (the LLM critic or the offline edit operators).
        prompts_dir: Output folder of this run (``models/prompts/<run>``).
        repeats: Rollouts per task and candidate.
        seed: Seed of the batches.
        test_dataset: Optional test tasks for the best prompt.
    """

    def __init__(
        self,
        resources: dict[str, Any],
        report: RunReport,
        config: PromptOptConfig,
        *,
        propose: ProposeFn,
        prompts_dir: Path,
        repeats: int = 1,
        seed: int = 0,
        test_dataset: Sequence[AspenTask] | None = None,
    ) -> None:
        super().__init__()
        self.resources = resources
        self.report = report
        self.config = config
        self.propose = propose
        self.prompts_dir = prompts_dir
        self.repeats = repeats
        self.seed = seed
        self.test_dataset = list(test_dataset or [])
        self.result: SearchResult | None = None
        self._published: dict[str, asyncio.Future[str]] = {}
        self._round_stack = ExitStack()
        self._on_record: Any = None

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        resources: dict[str, Any],
        report: RunReport,
        *,
        tasks: Sequence[AspenTask],
        repeats: int | None = None,
        seed: int = 0,
        test_dataset: Sequence[AspenTask] | None = None,
    ) -> PromptOptAlgorithm:
        """Build from settings: the ``algorithms.prompt_opt`` section, the model endpoint, the models dir.

        Args:
            settings: Run settings.
            resources: Resources of every rollout.
            report: The run's report (its folder name names the prompts folder).
            tasks: Tasks whose requirements the critic may quote.
            repeats: ``--repeats`` (wins over the config's).
            seed: ``--seed`` (the config's ``seed`` wins when set).
            test_dataset: Optional test tasks.
        """
        config = prompt_opt_config(settings)
        seed = config.seed if config.seed is not None else seed
        prompts_dir = (config.output_dir or settings.models_dir / "prompts") / report.output_dir.name
        offline = EditProposer(seed)
        use_llm = config.critic == "llm" or (config.critic == "auto" and settings.model_api_url)
        propose: ProposeFn = offline
        if use_llm:
            if not settings.model_api_url:
                raise ValueError("algorithms.prompt_opt.critic is 'llm' but MODEL_API_URL is not set")
            critic = PromptCritic(
                base_url=settings.model_api_url,
                api_key=settings.model_api_key.get_secret_value() if settings.model_api_key else None,
                model=config.critic_model or settings.model,
                temperature=config.critic_temperature,
                timeout_s=config.critic_timeout_s,
                retries=config.critic_retries,
                max_prompt_chars=config.max_prompt_chars,
            )
            propose = CriticProposer(
                critic,
                offline,
                {t.task_id: t.user_requirement for t in tasks},
                sample_size=config.critique_sample_size,
            )
        return cls(
            resources,
            report,
            config,
            propose=propose,
            prompts_dir=prompts_dir,
            repeats=repeats or config.repeats,
            seed=seed,
            test_dataset=test_dataset,
        )

    @property
    def proposer_name(self) -> str:
        """How candidates are made."""
        return str(getattr(self.propose, "name", type(self.propose).__name__))

    def seed_prompt(self) -> str:
        """The prompt the search starts from: the ``system_prompt`` resource, else the shipped default."""
        from agentlightning import PromptTemplate

        given = self.resources.get(SYSTEM_PROMPT_RESOURCE)
        return given.template if isinstance(given, PromptTemplate) else default_system_prompt()

    async def run(
        self,
        train_dataset: Sequence[AspenTask] | None = None,
        val_dataset: Sequence[AspenTask] | None = None,
    ) -> None:
        """Search, then write the best prompt, the history and the plot (and run test when given)."""
        c = self.config
        train, val = list(train_dataset or []), list(val_dataset or [])
        logger.info(
            "prompt_opt: beam %d, branch %d, rounds %d, train batch %s of %d, val %s of %d, repeats %d; "
            "candidates from %s",
            c.beam_width,
            c.branch_factor,
            c.rounds,
            c.train_batch_size or "all",
            len(train),
            c.val_batch_size or "all",
            len(val),
            self.repeats,
            self.proposer_name,
        )
        self.report.console.print(f"Prompt search: candidates from {self.proposer_name}")
        search = BeamSearch(
            self._score,
            self.propose,
            beam_width=c.beam_width,
            branch_factor=c.branch_factor,
            rounds=c.rounds,
            train_batch_size=c.train_batch_size,
            val_batch_size=c.val_batch_size,
            seed=self.seed,
            observer=self,
        )
        try:
            self.result = await search.run(self.seed_prompt(), train, val)
        except (KeyboardInterrupt, asyncio.CancelledError):  # a signal: history.json says so, not "running"
            if self.result is not None:
                self._write(self.result, status="interrupted")
            raise
        finally:
            self._round_stack.close()
            close = getattr(getattr(self.propose, "critic", None), "close", None)
            if close is not None:
                await close()
        result = self.result
        if self.test_dataset:
            result.best.test = await self._run_test(result.best)
        self._write(result, status="finished")
        plot_best_per_round(result, self.prompts_dir / PLOT_FILE)
        self.report.console.print(beam_table(result.beam, "Final beam (chosen on validation)"))
        best_val = result.best.val
        chosen_on = f"validation mean {best_val.score:.3f} over {best_val.n} rollouts; " if best_val else ""
        self.report.console.print(
            f"Best prompt ({result.best.id}: {chosen_on}the figure the beam is chosen on): "
            f"{self.prompts_dir / BEST_PROMPT_FILE}"
        )
        # The run's final table pools the rollouts of every candidate, the worst included: a different
        # figure from the best candidate's validation mean above, so it says what it is.
        self.report.table_title = "Reward by split and tier, every candidate's rollouts pooled"
        logger.info("prompt_opt: best %s written to %s", result.best.id, self.prompts_dir)

    # -- SearchObserver -------------------------------------------------------------------------

    def round_started(self, rnd: int, candidates: list[Candidate], train_tasks: int, val_tasks: int) -> None:
        """Open the round's progress bar."""
        self._round_stack.close()
        total = len(candidates) * (train_tasks + val_tasks) * self.repeats
        label = f"round {rnd}: {len(candidates)} candidate{'s' if len(candidates) != 1 else ''}"
        self._on_record = self._round_stack.enter_context(self.report.progress(label, total))

    def round_finished(self, summary: RoundSummary, result: SearchResult) -> None:
        """Close the progress bar, show the beam, log the cost, save the history so far."""
        self._round_stack.close()
        self._on_record = None
        self.result = result
        self.report.console.print(
            beam_table(
                result.beam,
                f"Beam after round {summary.round} ({summary.rollouts} rollouts, {summary.wall_s:.1f} s)",
            )
        )
        for note in summary.notes:
            logger.info("round %d: %s", summary.round, note)
        logger.info(
            "prompt_opt round %d: %d new candidates, %d rollouts in %.2f s; beam %s; best %s val %.3f",
            summary.round,
            len(summary.new),
            summary.rollouts,
            summary.wall_s,
            summary.beam,
            summary.best,
            summary.best_val,
        )
        self._write(result, status="running")

    # -- scoring --------------------------------------------------------------------------------

    async def _score(self, candidate: Candidate, split: str, tasks: Sequence[Any], round: int) -> Evaluation:
        """Publish the candidate (once) and run ``tasks`` with it; aggregate the records."""
        resources_id = await self._resources_id(candidate)

        def on_record(record: RolloutRecord) -> None:
            record.extra.update(candidate=candidate.id, round=round)
            if self._on_record is not None:
                self._on_record(record)
            else:
                self.report.add(record)

        records = await run_tasks(
            self.get_store(),
            list(tasks),
            resources_id=resources_id,
            mode=split,
            repeats=self.repeats,
            deadline_s=self.config.deadline_s,
            on_record=on_record,
        )
        return Evaluation.from_records(split, records)

    async def _resources_id(self, candidate: Candidate) -> str:
        """The resource snapshot of ``candidate`` (published on first use, shared by its splits)."""
        if candidate.id not in self._published:
            from agentlightning import PromptTemplate

            prompt = PromptTemplate(template=candidate.prompt, engine="f-string")
            resources = {**self.resources, SYSTEM_PROMPT_RESOURCE: prompt}
            self._published[candidate.id] = asyncio.ensure_future(publish(self.get_store(), resources))
        return await self._published[candidate.id]

    async def _run_test(self, best: Candidate) -> Evaluation:
        total = len(self.test_dataset) * self.repeats
        with self.report.progress(f"test: best prompt {best.id}", total) as on_record:
            self._on_record = on_record
            try:
                return await self._score(best, "test", self.test_dataset, -1)
            finally:
                self._on_record = None

    def _write(self, result: SearchResult, *, status: str) -> None:
        """``history.json`` (status ``running``, ``finished``, ``interrupted``) and the best prompt so far."""
        history = history_json(
            result,
            run=self.prompts_dir.name,
            status=status,
            proposer=self.proposer_name,
            config=self.config.model_dump(mode="json"),
            repeats=self.repeats,
            seed=self.seed,
            rollout_report=str(self.report.output_dir),
        )
        write_history(self.prompts_dir / HISTORY_FILE, history)
        write_best_prompt(self.prompts_dir / BEST_PROMPT_FILE, result)  # the leader so far
