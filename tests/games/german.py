"""What the games' German tests share: the messages a game package and its renderer use, and
the English pieces that must not show up in a German text."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

from gemtable.core import i18n

JS_KEYWORDS = {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)}
"""How web/i18n.js marks a message (Babel's javascript extractor)."""


def used_messages(game) -> dict:
    """The messages of ``game``'s package (the modules that use the language layer) and of its
    renderer web/games/<id>.js."""
    package = Path(game.domains[0]).parent
    renderer = package.parents[1] / "web" / "games" / f"{game.id}.js"
    used = i18n.extract(sorted(p for p in package.glob("*.py") if "i18n" in p.read_text(encoding="utf-8")))
    used.update(i18n.extract([renderer], keywords=JS_KEYWORDS, method="javascript"))
    return used


def english_fragments(game) -> list[str]:
    """Pieces of ``game``'s English sentences whose German differs: any of them in a German
    text means a message was shown untranslated."""
    with (Path(game.domains[0]) / "de.po").open("rb") as f:
        po = read_po(f, locale="de")
    out = set()
    for m in po:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        for english in ids:
            if english in strings:
                continue
            for piece in re.split(r"\{\w+\}", english):
                piece = piece.strip(" .,:;()+—·")
                if len(piece) >= 12 and " " in piece:
                    out.add(piece)
    return sorted(out)
