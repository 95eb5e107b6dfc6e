"""Settings: one pydantic model fed by config.toml, then REFLECTCLI_* env vars, then flags.

Lookup of the file: `--config FILE`, else `./config.toml`, else `<user config dir>/config.toml`.
Every error names the key (and the line, for broken TOML) and exits 2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reflectcli.configfile import ENV_PREFIX, find_config_file, read_toml, resolve_runs_dir
from reflectcli.errors import ConfigError
from reflectcli.writing.languages import resolve_language
from reflectcli.writing.rubric import DIMENSIONS


class Policy(BaseModel):
    """How the revision controller spends rounds and tokens (`[policy]` in config.toml)."""

    model_config = ConfigDict(extra="forbid")

    weights: dict[str, float] | None = Field(
        None, description="Dimension weights; when set, overall = the weighted mean of dimensions"
    )
    minimums: dict[str, float] = Field(
        default_factory=dict, description="Per-dimension minimum scores a pass also needs"
    )
    min_gain: float = Field(0.5, ge=0, le=10, description="A round gaining less is a stall")
    patience: int = Field(2, ge=1, le=20, description="Stalled rounds in a row that saturate")
    max_tokens: int | None = Field(None, gt=0, description="Token budget for the whole run")
    max_cost: float | None = Field(None, gt=0, description="Cost budget in USD for the whole run")
    revision: Literal["section", "full"] = Field(
        "section", description="Rewrite only the sections the critique names, or the whole article"
    )

    @field_validator("weights", "minimums")
    @classmethod
    def _known_dimensions(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        for name, number in (value or {}).items():
            if name not in DIMENSIONS:
                raise ValueError(f"unknown dimension {name!r} (known: {', '.join(DIMENSIONS)})")
            if not 0 <= number <= 10:
                raise ValueError(f"{name} must be between 0 and 10, got {number}")
        return value

    @field_validator("weights")
    @classmethod
    def _some_weight(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is not None and sum(value.values()) <= 0:
            raise ValueError("at least one weight must be above 0")
        return value


class Research(BaseModel):
    """Where a run's evidence comes from (`[research]` in config.toml)."""

    model_config = ConfigDict(extra="forbid")

    sources: Literal["auto", "none", "local", "web", "hybrid"] = Field(
        "auto",
        description="Evidence for the article: local = the source library; web = a web search "
        "(needs `web`); hybrid = both; auto = the library when it holds a passage about the task, else none",
    )
    top_k: int = Field(3, ge=1, le=10, description="Passages retrieved per search")
    max_queries: int = Field(
        12, ge=0, le=200, description="Searches for the critic's queries per run at most (0: none)"
    )
    web: str | None = Field(
        None, description="Web search provider for litellm.search(): searxng, tavily, brave, ..."
    )
    web_api_base: str | None = Field(None, description="The search provider's URL (searxng)")

    @field_validator("web_api_base")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return server_url(value)

    fetch: bool = Field(True, description="Fetch each web result's page for its full text")
    allow_private: bool = Field(
        False,
        description="Fetch URLs that resolve to this machine or a private network (loopback, "
        "private, link-local, multicast, reserved addresses): for an intranet. Off, such URLs "
        "(and their redirects) are refused before connecting",
    )
    proxy: str | None = Field(
        None,
        description="An http:// proxy (http://host:port) every fetch goes through, as a CONNECT "
        "tunnel to the address the check passed (the check still applies). Off by default; "
        "HTTP(S)_PROXY in the environment is never used",
    )

    @field_validator("proxy")
    @classmethod
    def _http_proxy(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        try:
            parts.port  # noqa: B018 (a port out of range raises here)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}") from None
        if parts.scheme.lower() != "http" or not parts.hostname:
            raise ValueError(f"{value!r} is not an http:// proxy URL (http://host:port)")
        if parts.username is not None:  # settings are saved with each run (resume reuses them)
            raise ValueError("a proxy URL with a user or password: credentials are not kept in "
                             "settings, which every run saves")  # fmt: skip
        return value


def server_url(value: str | None, allow_none: bool = False) -> str | None:
    """`value` when it is an http(s) URL with a host (or, where allowed, "none"); else an error
    saying what a server URL looks like."""
    if value is None or (allow_none and value.strip().lower() == "none"):
        return value
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{value!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:11434/v1")
    return value.strip()


class MemorySettings(BaseModel):
    """Lessons learned across runs (`[memory]` in config.toml)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Recall lessons at the start of a run, learn at its end")
    k: int = Field(3, ge=0, le=10, description="Lessons recalled into a run at most")
    half_life_days: float = Field(
        30.0, gt=0, le=3650, description="Days in which an unreinforced lesson's strength halves"
    )


SECTION_TOKENS = 1024
EMBEDDED = "local/smollm2"
# A tiny model copies examples and loops on long generations: fewer, shorter sections, a tighter
# cap per section, a cooler temperature, one revision round. Applied to every key the user did
# not set (flag, env or config file); `reflectcli write` prints that it is in force.
TINY_PROFILE: dict[str, Any] = {
    "max_sections": 3,
    "max_rounds": 2,
    "temperature": 0.2,
    "section_tokens": 320,
}


class Settings(BaseModel):
    """Everything a run can be configured with; every field has a default."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        "local/smollm2",
        description="Writer model: local/smollm2 (embedded), local/<path>.gguf, "
        "or any litellm model string such as openai/gpt-4o-mini",
    )
    critic_model: str | None = Field(None, description="Critic model; defaults to `model`")
    critic: Literal["llm", "checklist"] = Field(
        "llm",
        description="Who reviews: 'llm' (the critic model) or 'checklist' (rules that measure "
        "length, examples, repetition, readability, prose and meta-text; the embedded model's default)",
    )
    threshold: float = Field(8.0, ge=0, le=10, description="Overall score that passes (0-10)")
    max_rounds: int = Field(3, ge=1, le=20, description="Reviews at most (hard cap)")
    max_sections: int = Field(4, ge=1, le=12, description="Sections in the outline at most")
    language: str | None = Field(
        None, description="Language to write in, a name or a code (fr, zh-CN); default: the task's"
    )
    temperature: float = Field(0.7, ge=0, le=2, description="Sampling temperature")
    timeout: float = Field(
        120.0, gt=0, le=3600, description="Seconds a model call may go without producing a token"
    )
    api_base: str | None = Field(None, description="Base URL of an OpenAI-compatible server")
    critic_api_base: str | None = Field(
        None, description="Base URL for the critic, when it is served elsewhere than the writer"
    )
    structured: Literal["auto", "schema", "json", "prompt"] = Field(
        "auto",
        description="How JSON answers are asked of remote models: a JSON schema, JSON mode, or "
        "the prompt alone; auto = a schema where the model or server takes one",
    )
    section_tokens: int = Field(
        SECTION_TOKENS, ge=32, le=8192, description="Tokens one drafted section may take at most"
    )
    threads: int = Field(
        0, ge=0, le=64, description="CPU threads for local models; 0 = chosen from the load at start"
    )
    runs_dir: str = Field("runs", description="Folder for reflect.db and the run artifacts")
    store: str | None = Field(
        None, exclude=True,
        description="Where runs are stored: 'sqlite' (reflect.db in runs_dir) or a postgresql:// URL",
    )  # fmt: skip
    concurrency: int | None = Field(
        None, ge=1, le=32,
        description="Independent calls at once at most: a research step's searches, a web search's "
        "page fetches, and (draft = parallel) a draft's sections; default 8 for remote models, "
        "1 for local ones (the embedded model answers one call at a time)",
    )  # fmt: skip
    draft: Literal["sequential", "parallel"] = Field(
        "sequential",
        description="sequential: each section is written with the sections before it in its "
        "prompt; parallel: all sections at once (up to `concurrency`), each with the outline, its "
        "goal and its neighbours' goals, and the sections' research in one step",
    )
    prompt_cache: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Shape prompts for a provider's prompt cache: on = a section rewrite "
        "carries the reviewed article in the prefix its review sent (read from the cache, and "
        "the rewrite sees the whole article); auto = per rewrite, on where litellm's price map "
        "shows a saving for a prompt of that size (its prefix at least the provider's minimum "
        "cacheable, 1,024 tokens for OpenAI); off = a section rewrite carries its section only",
    )
    transport: Literal["auto", "litellm"] = Field(
        "auto",
        description="How remote models are called: auto = an OpenAI-compatible server behind "
        "api_base (an openai/<name> model) straight over HTTP, without importing litellm, and "
        "every other model through litellm; litellm = every remote call through litellm",
    )
    retries: int = Field(
        3, ge=0, le=10,
        description="Retries of a model call or web search on 429, 5xx, timeouts, lost connections",
    )  # fmt: skip
    backoff: float = Field(1.0, ge=0, le=60, description="First retry delay in seconds (doubles)")
    interactive: bool = Field(False, description="Ask before going on after the outline and "
                              "when the loop stops without passing")  # fmt: skip
    pick: Literal["off", "ask", "all"] = Field(
        "off",
        description="Each change a revision proposes, one section's rewrite at a time: ask = shown "
        "as a diff to accept, reject or edit at a terminal (and the critic's list to strike from "
        "or add to first); all = every change accepted without asking; off = applied wholesale",
    )
    policy: Policy = Field(default_factory=Policy, description="The revision policy")
    research: Research = Field(default_factory=Research, description="Evidence and citations")
    memory: MemorySettings = Field(default_factory=MemorySettings, description="Lessons across runs")

    profile: str | None = Field(None, description="Set by reflectcli: the model profile in force")

    @field_validator("api_base", "critic_api_base")
    @classmethod
    def _url(cls, value: str | None, info: Any) -> str | None:
        """A server's URL is checked here, before a run exists, not after a call's retries."""
        return server_url(value, allow_none=info.field_name == "critic_api_base")

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return resolve_language(value)

    @model_validator(mode="after")
    def _profile(self) -> Settings:
        """The tiny-model profile for the embedded model, under whatever the user set."""
        if self.model == EMBEDDED and self.profile is None:
            for key, value in TINY_PROFILE.items():
                if key not in self.model_fields_set:
                    setattr(self, key, value)
            # a 135M model cannot critique: the checklist reviews, unless a critic was chosen
            if "critic" not in self.model_fields_set and self.critic_model is None:
                self.critic = "checklist"
            self.profile = "tiny"
        if self.concurrency is None:
            # 8: a 6-section draft's research and sections each in one wave (bench_parallel:
            # 1.05x the critical path; 4 made two waves of each, 2.07x)
            self.concurrency = 1 if self.model.startswith("local/") else 8
        return self

    @property
    def critic_name(self) -> str:
        """The critic model's name (the writer's when none is set)."""
        return self.critic_model or self.model

    @property
    def reviewer(self) -> str:
        """Who reviews, as the run index and the eval report show it (`reviewer_of`)."""
        return reviewer_of({"critic": self.critic, "critic_model": self.critic_model, "model": self.model})

    def run_params(self) -> dict[str, Any]:
        """The settings a run keeps in its checkpoint (resume reuses them)."""
        return self.model_dump()


def reviewer_of(saved: dict[str, Any]) -> str:
    """Who reviews the runs of these (saved) settings: `checklist`, or the critic model's name
    (the writer's when none is set)."""
    if saved.get("critic") == "checklist":
        return "checklist"
    return saved.get("critic_model") or saved.get("model") or ""


# [tables]
TABLES: dict[str, type[BaseModel]] = {"policy": Policy, "research": Research, "memory": MemorySettings}
KEYS = tuple(k for k in Settings.model_fields if k not in (*TABLES, "profile"))
HOISTED = ("threshold", "max_rounds")  # accepted in [policy] too; they live at the top level


def hoist_policy(values: dict[str, Any], where: str) -> dict[str, Any]:
    """`[policy] threshold = 9` means `threshold = 9`; both at once is an error."""
    policy = values.get("policy")
    if not isinstance(policy, dict):
        return values
    values, policy = dict(values), dict(policy)
    for key in HOISTED:
        if key in policy:
            if key in values:
                raise ConfigError(f"{where}: '{key}' is set both at the top level and in "
                                  "[policy]; keep one")  # fmt: skip
            values[key] = policy.pop(key)
    values["policy"] = policy
    return values


def env_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    out = {}
    for key in KEYS:
        value = environ.get(ENV_PREFIX + key.upper())
        if value is not None:
            out[key] = value
    return out


def load_settings(
    config_file: str | Path | None = None,
    flags: dict[str, Any] | None = None,
    environ: MutableMapping[str, str] | None = None,
) -> Settings:
    """Merge config file < env < flags and validate once."""
    merged: dict[str, Any] = {}
    source: dict[str, str] = {}
    path = find_config_file(config_file)
    if path is not None:
        _layer(merged, source, hoist_policy(read_toml(path), str(path)), lambda k: str(path))
    _layer(merged, source, env_values(environ), lambda k: ENV_PREFIX + k.upper())
    _layer(merged, source, flags or {}, _flag_name)
    flag = (flags or {}).get("runs_dir")
    merged["runs_dir"] = str(resolve_runs_dir(flag, path, environ))
    return _validate(merged, source)


def resume_settings(saved: dict[str, Any], flags: dict[str, Any] | None = None) -> Settings:
    """A run's own saved settings, with the few flags `resume` accepts laid over them."""
    merged: dict[str, Any] = {}
    source: dict[str, str] = {}
    _layer(merged, source, saved, lambda k: "saved run settings")
    flags = dict(flags or {})
    if flags.get("critic_model") and "critic" not in flags:  # a critic model named now reviews
        flags["critic"] = "llm"
    _layer(merged, source, flags, _flag_name)
    return _validate(merged, source)


FLAG_NAMES = {"max_sections": "--sections", "language": "--lang"}


def _flag_name(key: str) -> str:
    return FLAG_NAMES.get(key, "--" + key.replace("_", "-"))


def _layer(merged: dict, source: dict, values: dict[str, Any], where) -> None:
    for key, value in values.items():
        if value is None:
            continue
        if key in TABLES and isinstance(value, dict):
            inner = {k: v for k, v in value.items() if v is not None}
            if not inner:
                continue
            base = merged.get(key)
            merged[key] = {**(base if isinstance(base, dict) else {}), **inner}
            for name in inner:
                source[f"{key}.{name}"] = where(name)
            continue
        merged[key] = value
        source[key] = where(key)


def with_overrides(settings: Settings, overrides: dict[str, Any], where: str) -> Settings:
    """`settings` with some keys set (an eval task's overrides), validated: a bad value is a
    ConfigError naming `where` and the key, never a raw pydantic error."""
    merged = {**settings.model_dump(), **overrides}
    return _validate(merged, dict.fromkeys(overrides, where))


def _validate(merged: dict[str, Any], source: dict[str, str]) -> Settings:
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source)) from exc


def _describe(exc: ValidationError, source: dict[str, str]) -> str:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    key = ".".join(loc) or "?"
    table = loc[0] if len(loc) > 1 and loc[0] in TABLES else None
    where = source.get(f"{table}.{loc[1]}" if table else (loc[0] if loc else ""), "config")
    if err["type"] == "extra_forbidden":
        known = ", ".join(TABLES[table].model_fields if table else (*KEYS, *TABLES))
        return f"{where}: unknown config key '{key}' (known keys: {known})"
    value = err.get("input")
    message = err["msg"].removeprefix("Value error, ")  # our own validators' words, as written
    shown = f" (got {value!r})" if not isinstance(value, dict) and repr(value) not in message else ""
    return f"{where}: config key '{key}': {message}{shown}"
