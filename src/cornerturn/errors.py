"""Exceptions of cornerturn beyond the built-in ones."""

from __future__ import annotations


class BackendUnavailableError(NotImplementedError):
    """The backend that the data's device needs is missing (not installed, or no device)."""

    def __init__(self, backend: str, why: str) -> None:
        super().__init__(f"the {backend} backend is not available: {why}")
        self.backend = backend
        self.why = why
