"""Prompt caching by provider: the shortest prefix each caches, whether a request must mark its
breakpoint (Claude), the mark itself, and the cached tokens a usage object reports. Rules
only: no provider is called here."""

from __future__ import annotations

from typing import Any

# The shortest prompt prefix a provider caches, in tokens: OpenAI caches prompts from 1,024
# tokens (in 128-token steps), Anthropic from 1,024 (2,048 for Haiku; up to its marked
# breakpoint), DeepSeek from 64 (in 64-token units); others are taken as OpenAI. A prefix
# shorter than this is never read from a cache.
MIN_CACHED_PREFIX = {"openai": 1024, "azure": 1024, "anthropic": 1024, "deepseek": 64, "gemini": 1024}


CACHE_STEP = {"anthropic": 1, "deepseek": 64}  # cached tokens come in whole steps (others: 128)


SAVING = 0.95  # auto shapes a prompt for the cache where it costs at most this share of the plain one


def min_cached_prefix(model: str) -> int:
    """The provider's minimum cacheable prefix for `model` (MIN_CACHED_PREFIX)."""
    provider, _, name = model.partition("/")
    if not name:
        provider, name = ("anthropic" if provider.lower().startswith("claude") else "openai"), provider
    if "claude" in name.lower() and "haiku" in name.lower():
        return 2048
    if provider in ("bedrock", "vertex_ai") and "claude" in name.lower():
        return 1024
    return MIN_CACHED_PREFIX.get(provider, 1024)


def needs_cache_marker(model: str) -> bool:
    """Whether the provider caches a prompt's prefix only where the request marks it (Claude on
    Anthropic, Bedrock or Vertex AI: `cache_control`); OpenAI, DeepSeek and Gemini cache a
    repeated prefix by themselves, and a server behind api_base gets no marker."""
    provider, _, name = model.partition("/")
    if not name:  # a bare name litellm routes by itself
        return provider.lower().startswith("claude")
    return provider == "anthropic" or (provider in ("bedrock", "vertex_ai") and "claude" in name.lower())


def marked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with the end of the system message (the run's context, the same for every call
    that shows it: writing/prompts.py) marked as a cache breakpoint, as litellm passes it to
    Anthropic: a text content block with `cache_control: {"type": "ephemeral"}`."""
    out = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if i == 0 and message.get("role") == "system" and isinstance(content, str) and content:
            block = {"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}
            message = {**message, "content": [block]}
        out.append(message)
    return out


def cache_tokens(usage: Any) -> tuple[int, int]:
    """(read, written) prompt-cache tokens from a litellm usage object: OpenAI-style
    `prompt_tokens_details.cached_tokens` (litellm also puts Anthropic's reads there) or
    Anthropic's `cache_read_input_tokens`; writes from `cache_creation_input_tokens` or
    `prompt_tokens_details.cache_creation_tokens`. Both are part of `prompt_tokens`."""
    details = getattr(usage, "prompt_tokens_details", None)
    if isinstance(details, dict):
        read = details.get("cached_tokens")
        created = details.get("cache_creation_tokens")
    else:
        read = getattr(details, "cached_tokens", None)
        created = getattr(details, "cache_creation_tokens", None)
    read = read or getattr(usage, "cache_read_input_tokens", None) or 0
    created = created or getattr(usage, "cache_creation_input_tokens", None) or 0
    return int(read), int(created)
