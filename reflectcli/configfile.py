"""Finding and reading config.toml, without pydantic: read-only commands (history, show...)
need only `runs_dir` and must start fast."""

from __future__ import annotations

import os
import tomllib
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from reflectcli.errors import ConfigError

ENV_PREFIX = "REFLECTCLI_"
DEFAULT_RUNS_DIR = "runs"


def user_config_dir() -> Path:
    """Where the user-level config.toml lives (env REFLECTCLI_CONFIG_DIR overrides)."""
    if env := os.environ.get("REFLECTCLI_CONFIG_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "reflectcli"


def find_config_file(explicit: str | Path | None) -> Path | None:
    """The config file in force, or None when there is none."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}", hint="check the --config path")
        return path
    for candidate in (Path("config.toml"), user_config_dir() / "config.toml"):
        if candidate.is_file():
            return candidate
    return None


def read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc})") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}", hint="fix that line") from exc


def resolve_runs_dir(
    flag: str | Path | None,
    config_file: str | Path | None = None,
    environ: MutableMapping[str, str] | None = None,
) -> Path:
    """runs_dir from flag > env > config file > default: the one place that decides it (the
    read commands call it alone, without loading the whole configuration). Every command comes
    through here, so the store is settled here too (`apply_store`)."""
    environ = os.environ if environ is None else environ
    apply_store(config_file, environ)
    if flag:
        return Path(flag)
    if env := environ.get(ENV_PREFIX + "RUNS_DIR"):
        return Path(env)
    path = find_config_file(config_file)
    if path is not None:
        value: Any = read_toml(path).get("runs_dir", DEFAULT_RUNS_DIR)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{path}: config key 'runs_dir': must be a folder path string")
        return Path(value)
    return Path(DEFAULT_RUNS_DIR)


def apply_store(
    config_file: str | Path | None = None, environ: MutableMapping[str, str] | None = None
) -> None:
    """The store in force is REFLECTCLI_STORE (which `--store` sets): when it is unset, the config
    file's `store` key fills it in, for this process and the workers it starts."""
    environ = os.environ if environ is None else environ
    if environ.get(ENV_PREFIX + "STORE"):
        return
    path = find_config_file(config_file)
    value = read_toml(path).get("store") if path is not None else None
    if value is None:
        return
    if not isinstance(value, str):
        raise ConfigError(f"{path}: config key 'store': must be a postgresql:// URL or 'sqlite'")
    environ[ENV_PREFIX + "STORE"] = value
