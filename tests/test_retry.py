"""The one retry policy (reflectcli/retry.py): what is retried, the waits, the attempt loop and
its budget check; then a real run through litellm against the scripted server where every
call fails twice mid-answer before it is answered: the run stops at its budget, and the
requests the server saw are counted."""

from __future__ import annotations

import pytest

from reflectcli.errors import ModelError
from reflectcli.output.summary import summarize
from reflectcli.retry import TASKS, BudgetReached, Policy, for_calls, retryable
from reflectcli.runner import Runner
from tests.helpers import quiet_ui, settings
from tests.openai_server import OpenAIServer, answer, error, loopback_fixture, messages_hash

MODEL = "openai/test-model"
MESSAGES = [{"role": "user", "content": "Say something about revision, in two or three sentences."}]
TEXT = "Writers revise because a first draft finds the idea and a second one says it plainly."


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch)


# --- classification -----------------------------------------------------------------------------


class Status(Exception):
    """An error carrying an HTTP status, as litellm's and openai's do."""

    def __init__(self, status_code: int):
        super().__init__(f"status {status_code}")
        self.status_code = status_code


class Response(Exception):
    """An error carrying the response, as httpx's HTTPStatusError does."""

    def __init__(self, status_code: int):
        super().__init__(f"status {status_code}")
        self.response = type("R", (), {"status_code": status_code})()


def wrapped(outer: BaseException, inner: BaseException) -> BaseException:
    """`outer` raised while `inner` was being handled (litellm wraps errors this way)."""
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - the implicit context is the point
    except BaseException as exc:
        return exc


@pytest.mark.parametrize(
    "exc, expected",
    [
        (Status(429), True),
        (Status(408), True),
        (Status(500), True),
        (Status(502), True),
        (Status(503), True),
        (Response(504), True),
        (Status(400), False),
        (Status(401), False),
        (Status(403), False),
        (Status(404), False),
        (Response(401), False),
        (TimeoutError("read timed out"), True),
        (ConnectionResetError("reset by peer"), True),
        (ModelError("gave up after 4 attempts", transient=True), True),
        (ModelError("authentication failed"), False),
        (ValueError("a bug"), False),
        (KeyError("choices"), False),
        # litellm: "'nonsense' is not a valid SearchProviders", "TAVILY_API_KEY is not set"
        (wrapped(Status(500), ValueError("'x' is not a valid SearchProviders")), False),
        (wrapped(Status(500), ConnectionRefusedError(111, "refused")), True),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_what_is_retried(exc, expected):
    assert retryable(exc) is expected


def test_waits_double_up_to_the_cap_and_tasks_stop_at_their_attempts():
    assert [for_calls(3, 1.0).delay(n) for n in (1, 2, 3, 6, 9)] == [1.0, 2.0, 4.0, 30.0, 30.0]
    assert for_calls(3, 0.0).delay(3) == 0.0
    fault = ModelError("gave up", transient=True)
    assert [TASKS.retry_in(fault, n) for n in (1, 2, 3)] == [2.0, 4.0, None]
    assert TASKS.retry_in(ModelError("bad key"), 1) is None  # not the provider's fault: once


class Flaky:
    """Fails with `errors` in turn, then answers; counts its attempts."""

    def __init__(self, *errors: BaseException):
        self.errors, self.attempts = list(errors), 0

    def __call__(self) -> str:
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def test_the_attempt_loop_retries_waits_and_stops():
    slept: list[float] = []
    flaky = Flaky(Status(503), Status(429))
    assert Policy(attempts=3, base=0.5).call(flaky, sleep=slept.append) == "ok"
    assert flaky.attempts == 3 and slept == [0.5, 1.0]

    bounded = Flaky(*[Status(500)] * 9)
    with pytest.raises(Status):  # the last failure itself, once the attempts are spent
        Policy(attempts=3, base=0.0).call(bounded, sleep=slept.append)
    assert bounded.attempts == 3

    fatal = Flaky(Status(401))
    with pytest.raises(Status):
        Policy(attempts=3, base=0.0).call(fatal, sleep=slept.append)
    assert fatal.attempts == 1


def test_a_retry_the_budget_refuses_is_not_sent():
    asked: list[int] = []

    def budget() -> str | None:
        asked.append(flaky.attempts)
        return "10 tokens used of a 10 budget" if flaky.attempts >= 2 else None

    flaky = Flaky(Status(503), Status(503), Status(503))
    with pytest.raises(BudgetReached, match="10 tokens used of a 10 budget"):
        Policy(attempts=4, base=0.0).call(flaky, sleep=lambda s: None, budget=budget)
    assert flaky.attempts == 2 and asked == [1, 2]  # asked before each retry, none sent after
    never = Flaky(Status(401))
    with pytest.raises(Status):  # not retryable: the budget is not even asked
        Policy(attempts=4).call(never, budget=lambda: pytest.fail("asked"))


# --- a model call through litellm -------------------------------------------------------------------


class FailsTwice:
    """Server replies: the first two attempts at each request (by its messages) are cut off after
    a few words, mid-answer; the third is answered by `responder` (default: TEXT)."""

    def __init__(self, responder=None, failures: int = 2):
        self.responder = responder or (lambda body: TEXT)
        self.failures = failures
        self.seen: dict[str, int] = {}

    def __call__(self, body):
        key = messages_hash(body["messages"])
        self.seen[key] = self.seen.get(key, 0) + 1
        text = self.responder(body)
        if self.seen[key] <= self.failures:
            return answer(text, cut_after=4)  # the role chunk and three words, then lost
        return answer(text)


def client(server: OpenAIServer, retries: int = 3):
    from reflectcli.models.remote import LiteLLMClient

    return LiteLLMClient(MODEL, api_base=server.base_url, retries=retries, backoff=0.0, timeout=10.0)


def test_a_call_cut_twice_mid_answer_is_answered_on_the_third_attempt_and_counts_all_three():
    with OpenAIServer(reply=FailsTwice()) as server:
        completion = client(server).complete(MESSAGES, step="plan", max_tokens=200)
        assert server.count == 3
    assert completion.text == TEXT and completion.retries == 2
    assert all("(estimated; counted in the usage)" in line for line in completion.retry_log)
    assert completion.estimated_tokens > 0  # the cut attempts' tokens: the provider never said
    assert "retrying with max_tokens 150" in completion.retry_log[0]  # never the same request again
    answered = max(1, len(TEXT) // 4)  # the server's count for the answer
    assert completion.completion_tokens > answered  # and the two cut attempts' words


def test_the_client_asks_the_budget_before_each_retry():
    asked: list[tuple[int, float | None]] = []

    def budget(tokens: int, cost: float | None) -> str | None:
        asked.append((tokens, cost))
        return "over" if len(asked) == 2 else None

    with OpenAIServer(reply=FailsTwice(failures=5)) as server:
        with pytest.raises(BudgetReached) as caught:
            client(server).complete(MESSAGES, step="plan", max_tokens=200, budget=budget)
        assert server.count == 2  # the third attempt was refused before it was sent
    first, second = asked
    assert 0 < first[0] < second[0]  # what the failed attempts cost so far, growing
    paid = caught.value.paid
    assert paid["prompt_tokens"] + paid["completion_tokens"] == second[0]
    assert len(caught.value.log) == 2


def test_a_401_is_not_retried_and_is_one_line():
    with OpenAIServer(reply=lambda body: error(401)) as server:
        with pytest.raises(ModelError) as caught:
            client(server).complete(MESSAGES, step="plan", budget=lambda t, c: pytest.fail("asked"))
        assert server.count == 1
    assert "authentication failed" in caught.value.message and "\n" not in caught.value.message
    assert not caught.value.transient  # a batch does not try this task again either
    assert TASKS.retry_in(caught.value, 1) is None


# --- a whole run: every call fails twice before it is answered ---------------------------------------


def budgeted_run(runs_dir, server: OpenAIServer, budget: int):
    from reflectcli.models.fake import ScriptedResponder
    from tests.openai_server import step_of

    responder = ScriptedResponder(scores=[6.0, 9.0], sections=2)
    server.reply = FailsTwice(lambda body: responder(step_of(body), body["messages"]))
    return Runner(quiet_ui()).write("Why do writers revise their drafts?", settings(
        runs_dir, model=MODEL, api_base=server.base_url, retries=3, backoff=0.0, timeout=10.0,
        max_sections=2, max_rounds=2, threshold=8, policy={"max_tokens": budget}))  # fmt: skip


def test_a_run_whose_calls_each_fail_twice_stops_at_its_budget_not_past_it(tmp_path):
    """Budget 1: the plan's first attempt, cut off mid-answer, spends it: no retry is sent (the
    client would otherwise try 3 more times). Budget 2w (w: what one cut attempt costs): the
    second attempt spends it, no third. Budget 2w+1: the third attempt is sent and answered, and
    the run stops before the first draft, as a budget stop between calls always did."""
    with OpenAIServer() as server:
        first = budgeted_run(tmp_path / "a", server, budget=1)
        assert server.count == 1
        state = first.state
        assert state["stop_reason"] == "budget" and state["status"] == "finished"
        w = summarize(state)["tokens"]  # the one failed attempt, counted
        assert w > 1
        call = next(e for e in state["trace"] if e.get("step") == "plan")
        assert call["finish_reason"] == "budget" and call["retry_log"][-1].startswith("retry not sent")
        assert state["decisions"][-1]["reason"] == "budget"
        assert "a retry of plan was not sent" in state["decisions"][-1]["detail"]
        assert call["retries"] == 0  # one attempt, cut off; no retry went out

        second = budgeted_run(tmp_path / "b", server, budget=2 * w)
        assert server.count == 1 + 2
        assert second.state["stop_reason"] == "budget" and summarize(second.state)["tokens"] == 2 * w

        third = budgeted_run(tmp_path / "c", server, budget=2 * w + 1)
        assert server.count == 1 + 2 + 3
        state = third.state
        assert state["stop_reason"] == "budget" and state["outline"]["source"] != "fallback"
        assert [r.step for r in server.records[-3:]] == ["plan"] * 3
        assert summarize(state)["tokens"] >= 2 * w + 1  # the answered attempt crossed it
        assert any(e.get("kind") == "budget" and "before draft" in e["note"] for e in state["trace"])


@pytest.mark.parametrize("provider", ["nonsense", "tavily"])
def test_a_bad_search_setting_is_not_retried(provider, monkeypatch):
    """litellm reports an unknown provider and a missing TAVILY_API_KEY as connection errors
    (status 500) around a ValueError: no attempt is repeated, no pause is slept."""
    from reflectcli.models.remote import web_search

    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    slept: list[float] = []
    with pytest.raises(ModelError) as caught:
        web_search(provider, retries=3, backoff=1.0, sleep=slept.append)("printing", 3)
    assert slept == [] and not caught.value.transient
    assert caught.value.message.startswith(f"web search ({provider}) failed: ")
    assert "gave up" not in caught.value.message and "\n" not in caught.value.message


def test_a_node_the_budget_stopped_renders_without_its_outline_or_review():
    """The plan (now stoppable inside its call) and a review stopped by the budget return no
    outline or review: the renderer shows the budget line, not an error."""
    from reflectcli.graph.common import BudgetExceeded, budget_stop

    ui = quiet_ui()
    state = {"params": {"threshold": 8}, "outline": None, "reviews": [], "trace": []}
    for node in ("plan", "review"):
        update = budget_stop(node, BudgetExceeded("100 tokens used of a 90 budget", []), 1)
        ui.node_done(node, update, state)
    shown = ui.console.file.getvalue()
    assert shown.count("budget reached before") == 2
