"""The layers of the code: the import-linter contracts in pyproject.toml hold.

``core <- games <- bots <- analysis | adapters <- server <- cli`` (an arrow: "is
imported by"), no game imports another, and nothing above the games imports a
game package: they look games up in ``gemtable.core.registry``.  Inside the
server, the table core imports no feature and features import no route; and no
package or module anywhere takes part in an import cycle.  The contracts
live under ``[tool.importlinter]`` in pyproject.toml; this test runs them so
that plain ``pytest`` fails, with import-linter's report, when one is broken.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import gemtable

pytest.importorskip("importlinter", reason="import-linter comes with the test extra")

ROOT = Path(__file__).resolve().parents[1]

LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def test_import_contracts_are_kept():
    # Lint the very gemtable these tests import (a source tree on PYTHONPATH or
    # an installed copy), with the interpreter running them.
    source_root = str(Path(gemtable.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH")) if p)
    result = subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache"],  # reads ROOT/pyproject.toml
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = (result.stdout + result.stderr).strip()
    report = report[report.find("Contracts\n") :] if "Contracts\n" in report else report  # no logo
    assert result.returncode == 0, f"import-linter contracts broken:\n{report}"
    assert "0 broken" in report, report
