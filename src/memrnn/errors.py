"""Errors a person can cause: the command line turns these into one line and exit code 2."""

from __future__ import annotations


class UserError(ValueError):
    """A mistake in what was asked for (a name, a setting, a path), not a bug."""
