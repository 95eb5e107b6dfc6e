"""What went wrong with a remote call, in one line: missing credentials, a refused or lost
connection (whatever the client library wrapped it in), the first line of an error without
its preambles."""

from __future__ import annotations

import re


def _credentials(text: str) -> bool:
    text = text.lower()
    return (
        "missing credentials" in text
        or "api_key client option must be set" in text
        or ("api key" in text and ("missing" in text or "not set" in text or "no api key" in text))
    )


def _short(exc: BaseException) -> str:
    """The first line of an exception, without litellm's long preambles and repetitions."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = re.sub(r"\b(\w+): (\1: )+", r"\1: ", text.replace("litellm.", ""))
    text = re.sub(r"(APITimeoutError - )?Request timed out\.?( Error_str: Request timed out\.?)?",
                  "request timed out", text)  # fmt: skip
    if why := _connection_problem(exc):
        return why
    name = type(exc).__name__
    return f"{name}: {text[:300]}" if name not in text else text[:300]


def _connection_problem(exc: BaseException) -> str | None:
    """`connection refused` / `connection lost` for a failed connection, whatever litellm
    wrapped it in (it reports a refused connection as an InternalServerError)."""
    seen: BaseException | None = exc
    lost = False
    for _ in range(8):
        if seen is None:
            break
        text = f"{type(seen).__name__}: {seen}".lower()
        if isinstance(seen, ConnectionRefusedError) or "connection refused" in text or "errno 111" in text:
            return "connection refused"
        if "connection error" in text or "remoteprotocolerror" in text or "connection reset" in text:
            lost = True
        seen = seen.__cause__ or seen.__context__
    return "connection failed (refused, reset or closed)" if lost else None
