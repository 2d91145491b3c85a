"""The page tests' own fixture: a phone's browser context (the offline game's tests)."""

from __future__ import annotations

from tests.support.offline_pages import phone

__all__ = ["phone"]
