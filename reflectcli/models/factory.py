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


def make_client(model: str, settings: Any) -> ModelClient:
    """A client for `model`, configured from `settings` (timeout, api_base, retries...)."""
    prefix = model.split("/", 1)[0]
    if prefix in _FACTORIES:
        return _FACTORIES[prefix](model, settings)
    if prefix == "local":
        from reflectcli.models.local import LocalClient

        return LocalClient(model, temperature=settings.temperature, threads=settings.threads)
    from reflectcli.models.remote import LiteLLMClient

    return LiteLLMClient(
        model,
        temperature=settings.temperature,
        timeout=settings.timeout,
        api_base=settings.api_base,
        retries=settings.retries,
        backoff=settings.backoff,
    )
