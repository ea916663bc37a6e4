"""Loading component data files (TOML) with clear errors."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .errors import DataError


def load_toml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise DataError(f"cannot read component data {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"component data {path} is not valid TOML: {exc}") from None


def require(condition: bool, message: str, path: str | Path = "") -> None:
    """Raise DataError(message) unless condition holds."""
    if not condition:
        where = f"{Path(path).name}: " if path else ""
        raise DataError(where + message)
