"""litellm's price map, read as the data file it ships (`model_prices_and_context_window_backup.json`,
the one LITELLM_LOCAL_MODEL_COST_MAP=True makes litellm itself use), without importing litellm:
the HTTP path (models/openai_http.py) prices its calls and decides prompt caching from it. A
price this module cannot work out alone (a tier above some prompt size that this prompt passes)
is left to litellm (`TIERED`), which remote.py then asks.
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from pathlib import Path
from typing import Any

FILE = "model_prices_and_context_window_backup.json"
TIERED = object()  # cost(): a tiered price, for litellm to compute
_MAP: list[dict[str, Any]] = []
_GUARD = threading.Lock()
_TIER = re.compile(r"_above_(\d+)k_tokens$")


def price_map() -> dict[str, Any]:
    """The map, loaded once a process ({} where litellm is not installed)."""
    with _GUARD:
        if not _MAP:
            data: dict[str, Any] = {}
            spec = importlib.util.find_spec("litellm")  # finds the package, imports nothing
            for folder in (spec.submodule_search_locations or []) if spec else []:
                path = Path(folder) / FILE
                if path.is_file():
                    data = json.loads(path.read_text(encoding="utf-8"))
                    break
            _MAP.append(data)
        return _MAP[0]


def model_info(model: str) -> dict[str, Any] | None:
    """The map's entry for a litellm model string (`openai/gpt-4o-mini` or `gpt-4o-mini`), as
    litellm's get_model_info finds it: the whole string first, then the name after the provider."""
    found = price_map()
    entry = found.get(model)
    if entry is None and "/" in model:
        provider, name = model.split("/", 1)
        entry = found.get(name)
        if isinstance(entry, dict) and entry.get("litellm_provider") not in (None, provider):
            entry = None
    return entry if isinstance(entry, dict) else None


def cost(model: str, prompt: int, completion: int, read: int = 0, created: int = 0) -> Any:
    """What the provider bills, as litellm's cost_per_token computes it for a per-token price:
    cache reads at `cache_read_input_token_cost`, writes at `cache_creation_input_token_cost`
    (each the input price when missing), the rest of the prompt at `input_cost_per_token`, the
    answer at `output_cost_per_token`. None for a model without a price; TIERED when a price
    tier above some prompt size applies (litellm's own computation is needed then)."""
    info = model_info(model)
    if info is None or info.get("input_cost_per_token") is None or info.get("output_cost_per_token") is None:
        return None
    for key in info:
        tier = _TIER.search(key)
        if tier and prompt > int(tier.group(1)) * 1000:
            return TIERED
    full = float(info["input_cost_per_token"])
    reads = info.get("cache_read_input_token_cost")
    writes = info.get("cache_creation_input_token_cost")
    plain = max(0, prompt - read - created)
    total = plain * full + read * (full if reads is None else float(reads))
    total += created * (full if writes is None else float(writes))
    return total + completion * float(info["output_cost_per_token"])


def cache_share(model: str) -> float | None:
    """A cached input token's price as a share of an uncached one, None where the map has none."""
    info = model_info(model) or {}
    read, full = info.get("cache_read_input_token_cost"), info.get("input_cost_per_token")
    return float(read) / float(full) if read is not None and full else None
