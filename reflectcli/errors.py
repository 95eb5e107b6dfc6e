"""Errors meant for the user: a one-line message and an exit code, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A failure the user can act on; the CLI prints `message` (and `hint`) and exits."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(UserError):
    """Bad configuration or bad command-line input (usage error)."""

    exit_code = 2


class ModelError(UserError):
    """A model call failed for good (retries spent, or an error retrying cannot fix).
    `transient`: the provider's fault (retries spent on timeouts, 429, 5xx, lost connections):
    a batch tries the task again later; anything else (a bad key, an unknown model) it does not."""

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int | None = None,
                 transient: bool = False, spent: dict | None = None):  # fmt: skip
        super().__init__(message, hint=hint, exit_code=exit_code)
        self.transient = transient
        # tokens (and cost) the failed attempts generated before failing: a paid API bills them
        self.spent = spent


class RunInterrupted(Exception):
    """The run was stopped by Ctrl-C or SIGTERM; its checkpoint is kept."""

    def __init__(self, thread_id: str):
        super().__init__(thread_id)
        self.thread_id = thread_id


class RunBusy(UserError):
    """Another live process holds the thread (its pid on this host, or an unexpired lease).
    `generation`: the holder's claim (its fencing token), when known; `busy`: how many attempts
    in a row a batch's task found that same claim holding it (set by the batch's job)."""

    def __init__(self, message: str, *, hint: str | None = None, generation: int | None = None):
        super().__init__(message, hint=hint)
        self.generation = generation
        self.busy: int | None = None


class LostClaim(UserError):
    """Another process took the run over (this one's claim, its fencing token, is stale): this
    process stops at once and writes nothing more for the run, not even its failure. `owner`:
    who holds the run now (`pid N on HOST`), when the store could say."""

    def __init__(self, thread_id: str, owner: str | None = None):
        by = f" by {owner}" if owner else " by another process"
        super().__init__(f"thread {thread_id} was taken over{by}: this process lost its claim on the "
                         "run and stops without writing to it",
                         hint="`reflectcli history` shows the run's state")  # fmt: skip
        self.thread_id = thread_id
        self.owner = owner
