"""Settings: one typed object from CLI overrides, environment, .env, a YAML config and defaults.

Precedence, highest first: keyword overrides (CLI flags) > environment > ``.env`` > YAML file
(``--config``; ``configs/default.yaml`` when it exists and no file is named) > defaults.

Environment names: ``MODEL``, ``MODEL_API_KEY``, ``MODEL_API_URL`` and ``ASPEN_SIMULATOR_URL`` as
they are; every other field with the ``ASPEN_RL_`` prefix, nested fields joined by ``__``, e.g.
``ASPEN_RL_SIMULATOR_TIMEOUT_S=30``, ``ASPEN_RL_REWARD__COMPLETION=0.5``,
``ASPEN_RL_ALGORITHMS__BASELINE__REPEATS=3``. YAML keys are the field names (``model``,
``reward: {completion: 0.4}``...).
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from aspen_rl.reward.base import RewardWeights
from aspen_rl.yaml_files import read_mapping

DEFAULT_CONFIG_PATH = Path("configs/default.yaml")
_yaml_path: ContextVar[Path | None] = ContextVar("aspen_rl_settings_yaml", default=None)


class BaselineSettings(BaseModel):
    """Baseline evaluator settings."""

    model_config = ConfigDict(extra="forbid")

    repeats: int = Field(default=1, ge=1, description="Rollouts per task.")


class AlgorithmsSettings(BaseModel):
    """Per-algorithm sections: ``algorithms.<name>``, one per registered algorithm.

    Sections without a model here (prompt_opt, grpo, verl) are kept as given and read by their
    algorithm's own typed config (:meth:`section`); the CLI refuses a section naming no registered
    algorithm (``grop:``) where the registry is known (``registry.check_algorithm_sections``).
    """

    model_config = ConfigDict(extra="allow")

    baseline: BaselineSettings = Field(default_factory=BaselineSettings)

    @model_validator(mode="after")
    def _sections_are_mappings(self) -> AlgorithmsSettings:
        bad = sorted(
            k for k, v in (self.model_extra or {}).items() if v is not None and not isinstance(v, dict)
        )
        if bad:
            raise ValueError(f"algorithm section(s) {', '.join(bad)} must be a mapping of settings")
        return self

    def section(self, name: str) -> dict[str, Any]:
        """The ``algorithms.<name>`` section as given (a copy; empty when absent), for its typed config."""
        return dict((self.model_extra or {}).get(name) or {})

    def section_names(self) -> tuple[str, ...]:
        """The names of the sections given, the typed ones included."""
        return ("baseline", *(self.model_extra or {}))


class Settings(BaseSettings):
    """Every runtime setting of aspen_rl (see the module docstring for sources and names).

    Attributes:
        model: Model name served at ``model_api_url`` (env ``MODEL``).
        model_api_key: API key of the model endpoint (env ``MODEL_API_KEY``); never shown in repr.
        model_api_url: OpenAI-compatible base URL (env ``MODEL_API_URL``); ``None`` uses the
            offline scripted policy.
        aspen_simulator_url: Simulator service root (env ``ASPEN_SIMULATOR_URL``), or several separated by
            commas or blanks, or the path of a file listing them one per line (``#`` comments): a pool
            (:mod:`aspen_rl.simulator.pool`). Named anywhere (env, ``.env``, YAML, ``--simulator-url``),
            it is used or the run stops with the reason; left unset, a run starts its own mock.
        simulator_max_runs_per_service: Simulations in flight at once on one service, across every
            process of this machine; ``null`` = 1 for a real service (Aspen runs one at a time and the
            real service names files by the second) and no limit for this project's mock; 0 = no limit.
        simulator_dispatch_log: File the pool appends one line per dispatched simulation to (a run
            sets it in its folder; its report counts each service's share from it).
        simulator_verify_tls: Verify HTTPS certificates; false skips verification (trusted networks only).
        simulator_ca_bundle: PEM file of the certificates to trust for the simulator instead of the
            default CA bundle (env ``ASPEN_RL_SIMULATOR_CA_BUNDLE``): for the real service's self-signed
            certificate, that certificate itself.
        simulator_timeout_s: Timeout of one simulator request (300 s: the real service's own test
            client's value; a real Aspen run can take minutes, and a run given up on keeps Aspen busy).
            Keep it above the mock's per-run budget plus its queue wait plus 10 s (30 + 20 + 10 by
            default): then a slow config is answered as a Timeout failure (the agent's fault, scored)
            before the client gives up (which would be an infrastructure error, left out of the scores).
        simulator_retries: Extra attempts on connection errors, timeouts and 5xx.
        simulator_backoff_s: First retry delay, doubled on each further retry.
        simulator_busy_wait_s: How long a busy simulator (HTTP 503, no free engine worker) is retried,
            with backoff, before the call fails as the infrastructure's ``busy``; keep it at or above the
            service's queue wait (the mock's is 20 s).
        simulator_token: Shared token sent as ``X-Aspen-Token`` (env ``ASPEN_SIMULATOR_TOKEN``); only
            for a mock started with a token (``SIMULATOR_MOCK_TOKEN``); never shown in repr.
        llm_timeout_s: Timeout of one LLM request. With ``llm_retries`` it bounds what a hung model
            endpoint costs: (1 + llm_retries) x llm_timeout_s plus a short backoff per LLM call,
            about a minute with the defaults (30 s, 1 retry); the rollout then fails with the
            endpoint named. Raise it for a slow local model that needs longer per completion.
        llm_retries: Extra attempts of a failed LLM request (429, 5xx, timeouts).
        temperature: Sampling temperature the run hands the model with its endpoint (0: greedy
            decoding, what a reproducible evaluation of a checkpoint wants). Algorithms that sample
            their own rollouts (grpo) use their config's sampling instead.
        max_tool_iterations: Cap on the agent's tool-call loop per rollout.
        schema_max_chars: Budget of the schema text ``get_schema`` shows the model (compact
            rendering; ``null`` for the raw JSON).
        clear_schema_after_run: Once a simulation has succeeded, show the model its earlier schema
            answers as a one-line stub, and once its results are read, the config it sent as a one-line
            acknowledgement (both stay in the trace); keeps later prompts short.
        rollout_timeout_s: Wall-clock cap of one rollout.
        max_infrastructure_share: Largest share (0-1) of a run's rollouts that may fail by the
            infrastructure's fault (left out of every reward and mean, and counted); past it the run
            ends non-zero saying so.
        reward: Reward weights (of the shipped reward).
        reward_fn: A custom reward as ``"module:callable"`` (env ``ASPEN_RL_REWARD_FN``), a
            :class:`~aspen_rl.reward.RewardFn`; ``None`` uses the shipped reward with ``reward``.
        output_dir: Where run reports go.
        models_dir: Where prompts, checkpoints and adapters are written.
        data_dir: Folder of the task splits.
        algorithms: Per-algorithm settings.
    """

    model_config = SettingsConfigDict(
        env_prefix="ASPEN_RL_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_by_name=True,
        validate_by_alias=True,
        protected_namespaces=(),
        validate_default=True,
    )

    model: str = Field(default="gpt-4o-mini", min_length=1, validation_alias=AliasChoices("MODEL", "model"))
    model_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("MODEL_API_KEY", "model_api_key")
    )
    model_api_url: str | None = Field(
        default=None, validation_alias=AliasChoices("MODEL_API_URL", "model_api_url")
    )
    aspen_simulator_url: str = Field(
        default="http://localhost:8002",
        validation_alias=AliasChoices("ASPEN_SIMULATOR_URL", "aspen_simulator_url"),
    )
    simulator_max_runs_per_service: int | None = Field(default=None, ge=0)
    simulator_dispatch_log: Path | None = None
    simulator_verify_tls: bool = True
    simulator_ca_bundle: Path | None = None
    simulator_timeout_s: float = Field(default=300.0, gt=0)
    simulator_retries: int = Field(default=2, ge=0)
    simulator_backoff_s: float = Field(default=0.5, ge=0)
    simulator_busy_wait_s: float = Field(default=25.0, ge=0)
    simulator_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ASPEN_SIMULATOR_TOKEN", "simulator_token")
    )
    llm_timeout_s: float = Field(default=30.0, gt=0)
    llm_retries: int = Field(default=1, ge=0)
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    max_tool_iterations: int = Field(default=10, ge=1)
    schema_max_chars: int | None = Field(default=8_000, ge=500)
    clear_schema_after_run: bool = True
    rollout_timeout_s: float = Field(default=600.0, gt=0)
    max_infrastructure_share: float = Field(default=0.2, ge=0, le=1)
    reward: RewardWeights = Field(default_factory=RewardWeights)
    reward_fn: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
    output_dir: Path = Path("runs")
    models_dir: Path = Path("models")
    data_dir: Path = Path("data")
    algorithms: AlgorithmsSettings = Field(default_factory=AlgorithmsSettings)

    @field_validator("aspen_simulator_url", mode="before")
    @classmethod
    def _simulator_urls(cls, value: Any) -> Any:
        """One URL, several (commas or blanks), or a file listing them: normalised to ``url1,url2``."""
        if isinstance(value, list | tuple):
            value = ",".join(map(str, value))
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text and not text.startswith(("http://", "https://")) and Path(text).is_file():
            lines = Path(text).read_text(encoding="utf-8").splitlines()
            text = " ".join(line.split("#", 1)[0] for line in lines)
            if not text.strip():
                raise ValueError(f"aspen_simulator_url file {value} lists no URL")
        urls = [u for u in text.replace(",", " ").split() if u]
        bad = [u for u in urls if not u.startswith(("http://", "https://"))]
        if bad:
            raise ValueError(f"aspen_simulator_url must start with http:// or https://, got {bad[0]!r}")
        return ",".join(dict.fromkeys(u.rstrip("/") for u in urls))

    @field_validator("aspen_simulator_url", "model_api_url")
    @classmethod
    def _http_url(cls, value: str | None, info: Any) -> str | None:
        if value is None or value == "":
            if info.field_name == "aspen_simulator_url":
                raise ValueError("aspen_simulator_url must not be empty")
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{info.field_name} must start with http:// or https://, got {value!r}")
        return value.rstrip("/")

    @property
    def simulator_urls(self) -> list[str]:
        """The simulator service roots (one, or a pool)."""
        return self.aspen_simulator_url.split(",")

    @field_validator("simulator_ca_bundle")
    @classmethod
    def _readable_bundle(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError(f"simulator_ca_bundle {value}: no such file (a PEM certificate bundle)")
        return value

    @property
    def simulator_named(self) -> bool:
        """Whether a simulator URL was named (it is then used or the run stops; unnamed, a mock starts)."""
        return "aspen_simulator_url" in self.model_fields_set

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Order sources: init kwargs > env > .env > YAML (the path given to :func:`load_settings`)."""
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        yaml_path = _yaml_path.get()
        if yaml_path is not None:
            sources.append(
                YamlConfigSettingsSource(settings_cls, yaml_file=yaml_path, yaml_file_encoding="utf-8")
            )
        return tuple(sources)

    def redacted(self) -> dict[str, Any]:
        """The settings as a JSON-able dict with the API key masked (for logs and reports)."""
        data = self.model_dump(mode="json")
        if self.model_api_key is not None:
            data["model_api_key"] = "**********"
        if self.simulator_token is not None:
            data["simulator_token"] = "**********"
        return data


def load_settings(
    config_path: str | Path | None = None,
    env_file: str | Path | None = ".env",
    **overrides: Any,
) -> Settings:
    """Build :class:`Settings` from every source.

    Args:
        config_path: YAML file (``--config``). ``None`` uses ``configs/default.yaml`` when it exists.
        env_file: Dotenv file (missing is fine); ``None`` reads none.
        **overrides: Highest-precedence values (CLI flags), by field name; ``None`` values are ignored
            so unset flags do not mask lower sources.

    Returns:
        The validated settings.

    Raises:
        FileNotFoundError: ``config_path`` was given and does not exist.
        pydantic.ValidationError: A value is invalid (the message names the field).
    """
    path: Path | None
    if config_path is not None:
        path = Path(config_path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
    else:
        path = DEFAULT_CONFIG_PATH if DEFAULT_CONFIG_PATH.is_file() else None
    if path is not None:
        _check_yaml_keys(path)
    values = {k: v for k, v in overrides.items() if v is not None}
    token = _yaml_path.set(path)
    try:
        return Settings(_env_file=env_file, **values)
    finally:
        _yaml_path.reset(token)


def _check_yaml_keys(path: Path) -> None:
    """Refuse a YAML file that does not parse or has top-level keys Settings does not know.

    Unknown keys would otherwise be ignored silently (``rewards:`` for ``reward:`` runs with the
    default weights).
    """
    data = read_mapping(path, what="settings")
    known = set(Settings.model_fields) | {
        "MODEL",
        "MODEL_API_KEY",
        "MODEL_API_URL",
        "ASPEN_SIMULATOR_URL",
        "ASPEN_SIMULATOR_TOKEN",
    }
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        known_list = ", ".join(sorted(Settings.model_fields))
        raise ValueError(f"config file {path}: unknown setting(s) {', '.join(unknown)}; known: {known_list}")
