"""The command line's tests read English: a developer's German LANG must not change them."""

import pytest


@pytest.fixture(autouse=True)
def _english(monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
