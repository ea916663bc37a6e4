"""Adapters to the research ecosystem: PettingZoo/Gymnasium and OpenSpiel.

Both are generic over the registry: every gemtable game is available, with
its fixed action space (``Action.id``), a legal-action mask and the game's
numeric observation, bounded and named field by field by
``Game.observation_layout`` (see docs/research.md).
Install the optional dependencies with ``pip install "gemtable[rl]"``.
"""
