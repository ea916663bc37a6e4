"""Adapters to the research ecosystem: PettingZoo/Gymnasium and OpenSpiel.

Both are generic over the registry: every gemtable game is available, with
its fixed action space (``Action.id``), a legal-action mask, and either the
game's numeric observation (``Game.observation``) or the JSON view.
Install the optional dependencies with ``pip install "gemtable[rl]"``.
"""
