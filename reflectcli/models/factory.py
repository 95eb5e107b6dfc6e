"""The one door to models: `make_client(model, settings)` returns a `ModelClient` for a model
string. `local/...` → the embedded xllamacpp model (local.py), a registered prefix (tests, benchmarks)
→ its factory, anything else → litellm (remote.py). Both are imported only when chosen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reflectcli.models.base import ModelClient

ClientFactory = Callable[[str, Any], ModelClient]
_FACTORIES: dict[str, ClientFactory] = {}


def register_client(prefix: str, factory: ClientFactory) -> None:
    """Route model strings starting with `prefix/` to `factory` (tests register fakes here)."""
    _FACTORIES[prefix] = factory


def unregister_client(prefix: str) -> None:
    _FACTORIES.pop(prefix, None)


def api_base_for(settings: Any, role: str) -> str | None:
    """The server a role's model is reached at: the critic takes `critic_api_base` when set
    ("none" = the provider's own endpoint), else the writer's `api_base`."""
    if role == "critic":
        chosen = getattr(settings, "critic_api_base", None)
        if chosen is not None:
            return None if chosen.strip().lower() in ("", "none", "default") else chosen
    return settings.api_base


def is_remote(model: str) -> bool:
    """Whether `model` goes through litellm (not an embedded model, not a registered prefix)."""
    prefix = model.split("/", 1)[0]
    return prefix not in _FACTORIES and prefix != "local"


def same_model(a: str, base_a: str | None, b: str, base_b: str | None) -> bool:
    """Whether two model strings reached at two servers are one model: the same server, and the
    same string or two remote names that resolve to one model (remote.canonical_model, which
    imports litellm: only asked when both are remote and the strings differ)."""
    if base_a != base_b:
        return False
    if a == b:
        return True
    if not (is_remote(a) and is_remote(b)):
        return False
    from reflectcli.models.remote import canonical_model

    return canonical_model(a, base_a) == canonical_model(b, base_b)


def make_client(model: str, settings: Any, role: str = "writer") -> ModelClient:
    """A client for `model` as the run's writer or critic, configured from `settings`."""
    prefix = model.split("/", 1)[0]
    if prefix in _FACTORIES:
        return _FACTORIES[prefix](model, settings)
    if prefix == "local":
        from reflectcli.models.local import LocalClient

        return LocalClient(model, temperature=settings.temperature, threads=settings.threads)
    from reflectcli.models.remote import CUSTOM_KEY_ENV, LiteLLMClient

    api_base = api_base_for(settings, role)
    separate = role == "critic" and api_base and api_base != settings.api_base
    return LiteLLMClient(
        model,
        temperature=settings.temperature,
        timeout=settings.timeout,
        api_base=api_base,
        api_key_env="REFLECTCLI_CRITIC_API_KEY" if separate else CUSTOM_KEY_ENV,
        structured=settings.structured,
        retries=settings.retries,
        backoff=settings.backoff,
        prompt_cache=settings.prompt_cache,
        transport=getattr(settings, "transport", "auto"),
    )
