"""Remote models: the client (`LiteLLMClient`: streaming, stalls, retries, structured-output
modes, budgets, costs) over one of two wires (models/wires.py: litellm, the only module that
imports it, lazily; or plain HTTP to an OpenAI-compatible server), and the web search."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from typing import Any

from reflectcli.errors import ModelError
from reflectcli.models.base import Completion
from reflectcli.models.caching import (  # noqa: F401  (the cache's rules, as callers name them here)
    CACHE_STEP,
    SAVING,
    cache_tokens,
    marked,
    min_cached_prefix,
    needs_cache_marker,
)
from reflectcli.models.failures import _credentials, _short
from reflectcli.models.wires import _HttpWire, _litellm, _LitellmWire
from reflectcli.retry import BudgetReached, for_calls, for_searches, retryable
from reflectcli.writing.textops import estimate_tokens, find_loop

log = logging.getLogger(__name__)


_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
}
CUSTOM_KEY_ENV = "REFLECTCLI_API_KEY"  # the key for an api_base server, if it needs one
MODES = ("schema", "json", "prompt")  # how JSON answers are asked for, strongest first


def key_env_var(model: str) -> str:
    """The environment variable that holds the API key for `model`'s provider."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return _KEY_ENV.get(provider, provider.upper() + "_API_KEY")


# a snapshot's suffix: -latest, a date (-20241022, -2024-07-18, @20241022, OpenAI's -0613, Mistral's
# -2407), Bedrock's -v1:0; and Bedrock's vendor prefix (anthropic., us.anthropic.)
_SNAPSHOT = re.compile(
    r"(?:-latest|[-@]20\d\d-?[01]\d-?[0-3]\d|-(?:0[1-9]|1[0-2])[0-3]\d|-2[3-9](?:0[1-9]|1[0-2]))?"
    r"(?:-v\d+(?::\d+)?)?$"
)
_VENDOR = re.compile(r"^(?:[a-z]{2}\.)?[a-z]+\.(?=[a-z])")


def canonical_model(model: str, api_base: str | None = None) -> str:
    """The model a litellm string names, for telling whether two strings are one model: litellm's
    own resolution (the cost map's `-latest` aliases: `claude-haiku-latest` → claude-haiku-5-5),
    then the provider route and the snapshot dropped (`gpt-4o-mini`, `openai/gpt-4o-mini`,
    `azure/gpt-4o-mini-2024-07-18` are one model; so are `claude-3-5-haiku-latest` and its dated
    snapshot). Imports litellm."""
    litellm = _litellm()
    try:
        name = litellm.get_llm_provider(model, api_base=api_base)[0]
    except Exception:  # a bare name litellm does not know: the string is all there is
        name = model
    return _SNAPSHOT.sub("", _VENDOR.sub("", name.rsplit("/", 1)[-1].lower()))


ESTIMATE_OUTPUT = 1024  # output tokens a call without a cap is assumed to take, for the estimate
MIN_CAP = 16  # a stalled call is retried with 3/4 of its token cap, down to this


class Stalled(TimeoutError):
    """No token arrived for `timeout` seconds in the middle of a streamed answer."""


def goes_direct(model: str, api_base: str | None, transport: str = "auto") -> bool:
    """Whether a model's calls go straight over HTTP (models/openai_http.py) rather than through
    litellm: an `openai/<name>` model behind an `api_base` (an OpenAI-compatible server, which
    litellm too reaches with the OpenAI protocol, unchanged), unless `transport = litellm`."""
    return transport == "auto" and bool(api_base) and model.startswith("openai/")


class LiteLLMClient:
    """Any litellm model, streamed: live token counts, Ctrl-C at once, and `timeout` counted
    between tokens (a slow but steady server is never cut). Retries only what retrying can fix
    (429, 5xx, stalls, lost connections); a stalled generation is retried with a smaller token
    cap, never unchanged. Tokens of failed attempts that generated text are counted."""

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.7,
        timeout: float = 120.0,
        api_base: str | None = None,
        api_key_env: str = CUSTOM_KEY_ENV,
        structured: str = "auto",
        retries: int = 3,
        backoff: float = 1.0,
        prompt_cache: str = "auto",
        transport: str = "auto",
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.model = model
        self.direct = goes_direct(model, api_base, transport)  # over HTTP, without litellm
        self.sends_ahead = True  # a network model: a run's first call may go before the graph is built
        self._wire_in_use: Any = None
        self.temperature = temperature
        self.timeout = timeout
        self.api_base = api_base
        self.api_key_env = api_key_env
        self.structured = structured
        self.retries = retries
        self.backoff = backoff
        self.progress: Callable[[str, int], None] | None = None  # (step, tokens so far)
        self._sleep = sleep
        self._mode: str | None = None  # the structured-output mode in force, once chosen
        self.prompt_cache = prompt_cache
        self._caches: bool | None = None
        self._share: float | None = None  # cache_share, once looked up (-1: none known)

    # --- set-up ---------------------------------------------------------------------------

    def _wire(self) -> Any:
        """How this client's calls go: straight over HTTP, or through litellm (imported then)."""
        if self._wire_in_use is None:
            if self.direct:
                key = os.environ.get(self.api_key_env) or "no-key"
                self._wire_in_use = _HttpWire(self.api_base or "", key)
            else:
                self._wire_in_use = _LitellmWire()
        return self._wire_in_use

    def preflight(self) -> None:
        """Fail at once, before a run is created, on an unknown model or a missing key."""
        if self.direct:  # `openai/<name>` at a server of one's own: nothing litellm could check
            return
        litellm = _litellm()
        try:
            litellm.get_llm_provider(self.model)
        except Exception as exc:
            raise ModelError(f"unknown model '{self.model}': use local/smollm2, local/<file>.gguf "
                             "or a litellm model string such as openai/gpt-4o-mini",
                             exit_code=2) from exc  # fmt: skip
        if self.api_base:
            return
        try:
            missing = litellm.validate_environment(self.model).get("missing_keys") or []
        except Exception:  # an unusual provider: let the call tell
            missing = []
        if missing:
            raise ModelError(f"{self.model}: no credentials: set {' and '.join(missing)}",
                             hint="or pass --api-base for a server that needs none", exit_code=2)  # fmt: skip

    @property
    def takes_schema(self) -> bool:
        """A JSON schema constrains this model's structured answers (so no example is needed)."""
        return self.mode() == "schema"

    def mode(self) -> str:
        """`schema`, `json` or `prompt`: the `structured` setting, or for `auto` what litellm
        knows of the model; any OpenAI-compatible server behind api_base takes a schema."""
        if self._mode is None:
            if self.structured != "auto":
                self._mode = self.structured
            elif self.api_base:
                self._mode = "schema"
            else:
                litellm = _litellm()
                try:
                    if litellm.supports_response_schema(model=self.model):
                        self._mode = "schema"
                    elif "response_format" in (litellm.get_supported_openai_params(self.model) or []):
                        self._mode = "json"
                    else:
                        self._mode = "prompt"
                except Exception:
                    self._mode = "prompt"
        return self._mode

    @property
    def caches_prompts(self) -> bool:
        """Whether prompts may be shaped for the provider's cache (config `prompt_cache`): `on`,
        or for `auto` a model whose cached input the price map bills (Claude's prefix is marked:
        `needs_cache_marker`; a read costs a tenth). A model the map does not know is taken not
        to cache. Under `auto` each prompt is then shaped only where that pays (`cache_saves`)."""
        if self._caches is None:
            if self.prompt_cache != "auto":
                self._caches = self.prompt_cache == "on"
            else:
                self._caches = self.cache_share is not None
        return self._caches

    def cache_saves(self, prefix: int, shaped: int, plain: int) -> bool:
        """Whether a prompt shaped for the cache (`shaped` tokens, its first `prefix` the call
        before's, read from the cache) costs less than the plain one (`plain` tokens) at the
        price map's rates, for prompts of that size: never where the prefix is shorter than the
        provider caches (`min_cached_prefix`: then all of it is billed in full), the cached part
        in the provider's whole steps, and only for a saving (SAVING: token counts here are
        estimates, not a tie's worth). `on` shapes every prompt, `off` none."""
        if self.prompt_cache != "auto":
            return self.prompt_cache == "on"
        share = self.cache_share
        if share is None or prefix < min_cached_prefix(self.model):
            return False
        provider = self.model.partition("/")[0] if "/" in self.model else "openai"
        step = 1 if needs_cache_marker(self.model) else CACHE_STEP.get(provider, 128)
        cached = prefix // step * step  # what the provider reads from its cache, in whole steps
        return cached * share + max(0, shaped - cached) <= SAVING * plain

    @property
    def cache_share(self) -> float | None:
        """What a cached input token costs, as a share of an uncached one: a tenth for Claude,
        the price map's ratio for others, None where the map knows no cached rate."""
        if self._share is None:
            self._share = -1.0
            if needs_cache_marker(self.model):
                self._share = 0.1
            else:
                info = self._wire().info(self.model) or {}
                read, full = info.get("cache_read_input_token_cost"), info.get("input_cost_per_token")
                if read is not None and full:
                    self._share = read / full
        return None if self._share < 0 else self._share

    def _kwargs(self, messages, json_schema, max_tokens, step) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": marked(messages) if needs_cache_marker(self.model) else messages,
            "temperature": self.temperature,
            "timeout": self.timeout,  # httpx applies it to each read: a stall timeout
            "num_retries": 0,
            "max_retries": 0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if self.api_base:
            kwargs["api_base"] = self.api_base
            # an exported OPENAI_API_KEY is not this server's key: send one only if configured
            kwargs["api_key"] = os.environ.get(self.api_key_env) or "no-key"
        if json_schema is not None:
            mode = self.mode()
            if mode == "schema":
                name = re.sub(r"[^A-Za-z0-9_-]", "_", step.split(":")[0]) or "answer"
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": json_schema, "strict": False},
                }
            elif mode == "json":
                kwargs["response_format"] = {"type": "json_object"}
        return kwargs

    # --- a call ---------------------------------------------------------------------------

    def complete(self, messages, *, step, json_schema=None, max_tokens=None, stop=None,
                 budget=None) -> Completion:  # fmt: skip
        """One call, retried by the one policy (reflectcli/retry.py). `budget(tokens, cost)` is
        asked before each retry with what the failed attempts have cost so far; a reason means
        the retry is not sent (BudgetReached, with those attempts' tokens)."""
        wire = self._wire()
        retry_log: list[str] = []
        wasted = {"prompt": 0, "completion": 0}  # tokens of failed attempts that generated
        started = time.monotonic()
        cap = [max_tokens]
        failures: list[str] = []  # one line per failed attempt (retry_log also notes downgrades)

        def attempt() -> tuple[str, str | None, dict]:
            while True:
                parts: list[str] = []
                try:
                    return self._stream(wire, messages, json_schema, cap[0], step, parts, stop)
                except wire.bad_request as exc:
                    if json_schema is not None and self._downgrade(exc):
                        retry_log.append(f"the server refused response_format; now {self._mode}")
                        continue  # the same attempt, in a weaker mode
                    raise
                except Exception as exc:
                    if retryable(exc):
                        failures.append(self._failed(exc, messages, parts, wasted, cap))
                        retry_log.append(failures[-1])
                    raise

        def spent() -> dict[str, Any]:
            return {"prompt_tokens": wasted["prompt"], "completion_tokens": wasted["completion"],
                    "cost": self._cost(wasted["prompt"], wasted["completion"]),
                    "estimated": wasted["prompt"] + wasted["completion"]}  # fmt: skip

        def over_budget() -> str | None:
            if budget is None or not (wasted["prompt"] or wasted["completion"]):
                return None  # an attempt that generated nothing is not billed
            paid = spent()
            return budget(paid["prompt_tokens"] + paid["completion_tokens"], paid["cost"])

        policy = for_calls(self.retries, self.backoff)
        try:
            text, finish, usage = policy.call(
                attempt, sleep=self._sleep, budget=over_budget, name=self.model,
                describe=lambda exc: failures[-1] if failures else _short(exc),
                give_up=lambda: bool(wasted["completion"]) and cap[0] is not None and cap[0] < MIN_CAP,
            )  # fmt: skip
        except BudgetReached as exc:
            exc.paid, exc.log = spent(), retry_log
            raise
        except Exception as exc:
            if retryable(exc):
                raise self._gave_up(exc, len(failures), failures[-1], wasted) from exc
            raise self._fatal(exc) from exc
        estimated = wasted["prompt"] + wasted["completion"]  # failed attempts: never the provider's count
        read, created = usage.get("cache_read", 0), usage.get("cache_creation", 0)
        answered = max(int(usage.get("prompt_tokens") or 0), read + created)
        if not answered:  # no usage: a stream cut (a loop) before the provider's count arrived
            answered = self._prompt_tokens(messages)
            estimated += answered
        done = int(usage.get("completion_tokens") or 0)
        if not done:
            done = _estimate(text)
            estimated += done
        prompt = answered + wasted["prompt"]
        return Completion(
            text=text,
            model=self.model,
            step=step,
            prompt_tokens=prompt,
            completion_tokens=done + wasted["completion"],
            cache_read_tokens=read,
            cache_creation_tokens=created,
            cost=self._cost(prompt, done + wasted["completion"], read, created),
            duration=time.monotonic() - started,
            retries=len(retry_log),
            retry_log=retry_log,
            finish_reason=finish,
            estimated_tokens=estimated,
        )

    def _prompt_tokens(self, messages: list[dict[str, Any]]) -> int:
        """A prompt's tokens where the provider did not say: litellm's tokenizer for the model
        where it has one (the litellm path), else about 4 characters a token. An estimate either
        way (the caller labels it so)."""
        counted = self._wire().count(self.model, messages)
        if counted:
            return counted
        return sum(_estimate(text) if isinstance(text := m.get("content"), str) else 0 for m in messages)

    def _failed(self, exc, messages, parts: list[str], wasted: dict[str, int], cap: list) -> str:
        """The retry log's line for a failed attempt; the tokens it generated are counted in
        `wasted` (estimated: the provider never said), and its token cap shrinks (`cap[0]`):
        never the same request again."""
        reason = _short(exc)
        generated = _estimate("".join(parts))
        if generated:
            wasted["prompt"] += self._prompt_tokens(messages)
            wasted["completion"] += generated
            reason += f" after ~{generated} tokens (estimated; counted in the usage)"
            if cap[0]:
                cap[0] = cap[0] * 3 // 4
                reason += f"; retrying with max_tokens {cap[0]}" if cap[0] >= MIN_CAP else ""
        return reason

    def _stream(self, wire, messages, json_schema, cap, step, parts,
                stop=None) -> tuple[str, str | None, dict]:  # fmt: skip
        """One attempt, token by token. A loop in free text is cut as it starts."""
        kwargs = self._kwargs(messages, json_schema, cap, step)
        if stop:
            kwargs["stop"] = list(stop)
        finish: str | None = None
        usage: dict[str, Any] = {}
        events = wire.events(kwargs)
        try:
            for text, finished, found in events:
                parts.append(text)
                finish = finished or finish
                if found:
                    usage = found
                    if finish:  # the answer and its count are complete: journal it now, without
                        break  # waiting for the stream's end-of-stream bookkeeping
                if len(parts) % 8 == 0:
                    if self.progress is not None:
                        self.progress(step, len(parts))
                    if json_schema is None and len(parts) % 16 == 0 and find_loop("".join(parts)):
                        finish = "loop"  # it would only repeat itself to the cap
                        break
        except wire.timeout as exc:
            if parts:  # it had started answering, then went silent
                raise Stalled(f"no token for {self.timeout:g}s") from exc
            raise
        finally:
            events.close()
        return "".join(parts), finish, usage

    def _downgrade(self, exc: Exception) -> bool:
        """A server that refuses response_format: the next weaker mode (schema → json →
        prompt), remembered for this client. False when there is nothing weaker to try."""
        text = str(exc).lower()
        if not any(w in text for w in ("response_format", "json_schema", "json schema", "grammar")):
            return False
        current = self.mode()
        if current == "prompt":
            return False
        self._mode = MODES[MODES.index(current) + 1]
        log.warning("%s: the server refused %s output; using %s", self.model, current, self._mode)
        return True

    def estimate_cost(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
                      **_: Any) -> float | None:  # fmt: skip
        """What a call may cost at most, before it is sent: its prompt's tokens (litellm's
        tokenizer for the model, where it has one) and its whole token cap as output, at the
        model's price. None when the price map has no price for the model (then no budget can be
        checked in dollars)."""
        if self.direct and self._wire().info(self.model) is None:
            return None  # unpriced: no need to count
        return self._cost(self._prompt_tokens(messages), max_tokens or ESTIMATE_OUTPUT)

    def _cost(self, prompt: int, completion: int, read: int = 0, created: int = 0) -> float | None:
        """What the provider bills, from litellm's price map: cache reads at its
        `cache_read_input_token_cost`, writes at `cache_creation_input_token_cost`, the rest of
        the prompt at the input price (a price it lacks falls back to the input price)."""
        return self._wire().cost(self.model, prompt, completion, read, created)

    def _gave_up(self, exc, attempts: int, reason: str, wasted) -> ModelError:
        counted = wasted["prompt"] + wasted["completion"]
        spent = f" ({counted} tokens of failed attempts, estimated)" if counted else ""
        hint = "the run is saved; try `reflectcli resume` later or raise `timeout`"
        if isinstance(exc, self._wire().connection) or "connection" in reason:
            where = self.api_base or "the provider"
            hint = f"the run is saved; check that {where} is reachable, then resume"
        paid = (
            {
                "prompt_tokens": wasted["prompt"],
                "completion_tokens": wasted["completion"],
                "cost": self._cost(wasted["prompt"], wasted["completion"]),
                "estimated": counted,
            }
            if counted
            else None
        )
        return ModelError(f"{self.model}: gave up after {attempts} attempts{spent}: {reason}", hint=hint,
                          transient=True, spent=paid)  # fmt: skip

    def _fatal(self, exc: Exception) -> ModelError:
        """A one-line error for failures that retrying cannot fix."""
        wire = self._wire()
        hint = "the run is saved; fix this, then `reflectcli resume`"
        text = str(exc)
        if isinstance(exc, wire.auth) or _credentials(text):
            env = self.api_key_env if self.api_base else key_env_var(self.model)
            return ModelError(f"{self.model}: authentication failed; set {env} to a valid API key",
                              hint=hint)  # fmt: skip
        if isinstance(exc, wire.context):
            return ModelError(
                f"{self.model}: the prompt is longer than the model's context window",
                hint="the run is saved; resume it with a model that has a larger context "
                "(`reflectcli resume ID --model ...`)",
            )
        if isinstance(exc, wire.not_found):
            return ModelError(f"{self.model}: model not found by the provider", hint=hint)
        if isinstance(exc, wire.bad_request) and "LLM Provider NOT provided" in text:
            return ModelError(
                f"unknown model '{self.model}': use local/smollm2, local/<file>.gguf or a "
                "litellm model string such as openai/gpt-4o-mini",
            )
        return ModelError(f"{self.model}: {_short(exc)}", hint=hint)


def _estimate(text: str) -> int:
    return estimate_tokens(text) if text else 0


def web_search(
    provider: str, api_base: str | None = None, timeout: float = 30.0, retries: int = 2,
    backoff: float = 1.0, sleep: Callable[[float], None] = time.sleep,
) -> Callable[[str, int], list[dict[str, Any]]]:  # fmt: skip
    """A web search through `litellm.search()` (searxng, tavily, brave, exa_ai, ...; the key
    from the provider's own variable): (query, n) -> [{title, url, snippet}]. Retried by the
    one policy (a 401, a bad provider name or a missing key is not); then a ModelError naming
    the provider, `transient` when it was the provider's fault."""
    policy = for_searches(retries, backoff)

    def run(query: str, n: int) -> list[dict[str, Any]]:
        litellm = _litellm()

        def attempt() -> list[dict[str, Any]]:
            response = litellm.search(query=query, search_provider=provider,
                                      max_results=n, api_base=api_base, timeout=timeout)  # fmt: skip
            return [{"title": r.title or "", "url": r.url or "", "snippet": r.snippet or ""}
                    for r in (response.results or [])[:n]]  # fmt: skip

        try:
            return policy.call(attempt, sleep=sleep, name=f"web search ({provider})", describe=_short)
        except Exception as exc:  # noqa: BLE001 - reported in one line
            again = retryable(exc)
            tried = f"gave up after {policy.attempts} attempts: " if again else ""
            raise ModelError(f"web search ({provider}) failed: {tried}{_short(exc)}",
                             hint="check [research] web and web_api_base, and the provider's key",
                             transient=again) from exc  # fmt: skip

    return run
