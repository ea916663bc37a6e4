"""Player words for a change in a seat's position, from the game's value features.

A game describes, for the value features a player understands, how to put a change
into words (:class:`Words`); :func:`describe` turns the features before and after a
move into a few short phrases such as ``+3 points`` or ``closer to a noble``.  Games
hand their table to ``Game.explain`` through :func:`explainer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import i18n

Phrase = str | tuple[str, str]
Reason = str | i18n.Message


@dataclass(frozen=True)
class Words:
    """How one value feature's change reads.

    ``scale``: the feature's value times ``scale`` is in the player's units (points,
    gems); ``step``: the smallest change in those units worth a phrase; ``up`` and
    ``down``: the phrase for a rise and for a fall, ``{n}`` standing for the size of
    the change in those units (rounded to a whole number).  A phrase with a count is a
    singular/plural pair marked with :func:`gemtable.core.i18n.markn`
    (``markn("+{n} point", "+{n} points")``), one without a plain text marked with
    :func:`~gemtable.core.i18n.mark`, so the game's catalogue translates both.  (A plain
    English text may still write ``{s}`` for a plural "s"; it is not translatable.)
    """

    feature: str
    scale: float
    up: Phrase
    down: Phrase
    step: float = 1.0


def _amount(x: float) -> str:
    return str(max(1, round(x)))


def _phrase(phrase: Phrase, n: str, lang: str | None, domains: Sequence[Path]) -> Reason:
    if "{s}" in phrase and not isinstance(phrase, tuple):
        return phrase.format(n=n, s="" if n == "1" else "s")  # English only, as it was written
    message = i18n.msgn(phrase[0], phrase[1], n=int(n)) if isinstance(phrase, tuple) else i18n.msg(phrase, n=n)
    return message if lang is None else i18n.render(message, lang, domains)


def describe(names: Sequence[str], before: Sequence[float], after: Sequence[float],
             words: Sequence[Words], limit: int = 2, lang: str | None = i18n.SOURCE,
             domains: Sequence[Path] = (i18n.CORE_DOMAIN,)) -> list[Reason]:
    """Up to ``limit`` phrases for the changes from ``before`` to ``after``, in the order
    ``words`` lists them (the game puts what matters most first), in ``lang``.  With
    ``lang=None`` the phrases are messages (:mod:`gemtable.core.i18n`), to be stored and
    rendered later in each reader's language with the game's domains (a phrase written
    in plain English only stays a string)."""
    index = {name: i for i, name in enumerate(names)}
    out: list[str] = []
    for w in words:
        i = index.get(w.feature)
        if i is None:
            continue
        delta = (after[i] - before[i]) * w.scale
        if abs(delta) + 1e-9 < w.step:
            continue
        n = _amount(abs(delta))
        out.append(_phrase(w.up if delta > 0 else w.down, n, lang, domains))
        if len(out) >= limit:
            break
    return out


def explainer(names: Sequence[str], words: Sequence[Words],
              domains: Sequence[Path] = (i18n.CORE_DOMAIN,)) -> Callable[..., list[str]]:
    """A ``Game.explain`` for a game's value features and their words, translated from
    ``domains`` (the game's catalogue folder, then the kernel's):
    ``explain(before, after, limit=2, lang="en")``; ``lang=None`` gives messages instead
    of texts (:func:`describe`)."""
    unknown = [w.feature for w in words if w.feature not in names]
    if unknown:
        raise ValueError(f"words for unknown value features: {', '.join(unknown)}")

    def explain(before: Sequence[float], after: Sequence[float], limit: int = 2,
                lang: str | None = i18n.SOURCE) -> list[Reason]:
        return describe(names, before, after, words, limit, lang, domains)

    return explain
