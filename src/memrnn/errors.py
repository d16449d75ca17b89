"""Errors a person can cause: the command line turns these into one line and exit code 2."""

from __future__ import annotations


class UserError(ValueError):
    """A mistake in what was asked for (a name, a setting, a path), not a bug."""


def one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """A warning as the command line shows it: ``memrnn: warning: ...`` on one line, not
    the file and line of the code that raised it (``warnings.formatwarning``'s signature)."""
    return f"memrnn: warning: {message}\n"
