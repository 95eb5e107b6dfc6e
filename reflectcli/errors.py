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
    """A model call failed for good (retries spent, or an error retrying cannot fix)."""


class RunInterrupted(Exception):
    """The run was stopped by Ctrl-C or SIGTERM; its checkpoint is kept."""

    def __init__(self, thread_id: str):
        super().__init__(thread_id)
        self.thread_id = thread_id
