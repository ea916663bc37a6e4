"""Suite-wide settings.

On a developer machine, tests needing Debian's chromium or a PostgreSQL server
skip when those are not installed.  CI installs both and sets
GEMTABLE_STRICT=1: there, any skipped test is reported as a failure, so a
missing install step cannot hide behind a green run.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

STRICT = os.environ.get("GEMTABLE_STRICT") == "1"

# CI explores the same Hypothesis examples every run (no flaky red builds from a
# newly found example); developers get fresh random examples each time.
settings.register_profile("ci", derandomize=True, database=None)
if STRICT:
    settings.load_profile("ci")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped under GEMTABLE_STRICT=1 (CI must run every test): {reason}"


@pytest.fixture
def shipped(monkeypatch, tmp_path):
    """Bot level ratings (levels.json) of every game go to a temporary folder, never into the
    real game packages (the ladder tests)."""
    from gemtable.analysis import ladder

    def path(game):
        return tmp_path / f"{game.id}.levels.json"

    monkeypatch.setattr(ladder, "levels_path", path)
    return path
