"""Splendor (Marc André, Space Cowboys): engine-building with gems and development cards."""

from pathlib import Path

from gemtable.core import Game
from gemtable.core.i18n import mark

from .features import LAYOUT as OBSERVATION_LAYOUT
from .features import SIZE as OBSERVATION_SIZE
from .features import observation
from .heuristics import (
    VALUE_FEATURE_NAMES,
    heuristic,
    value_context,
    value_features,
    value_features_all,
)
from .rules import ACTIONS, DATA, SplendorState
from .text import render_text
from .words import explain

GAME = Game(
    id="splendor",
    title="Splendor",
    player_counts=(2, 3, 4),
    state_class=SplendorState,
    actions=ACTIONS,
    options=(),
    data_status="reconstructed" if DATA.reconstructed else "complete",
    owners=mark("Splendor is designed by Marc André and published by Space Cowboys (Asmodee)."),
    summary=mark("Collect gems, buy development cards that give permanent bonuses, attract nobles; "
                 "first to 15 prestige points ends the round."),
    data=DATA,
    rules_path=str(Path(__file__).with_name("RULES.md")),
    play_path=str(Path(__file__).with_name("PLAY.md")),
    heuristic=heuristic,
    value_features=value_features,
    value_feature_names=VALUE_FEATURE_NAMES,
    explain=explain,
    value_features_all=value_features_all,
    value_context=value_context,
    render_text=render_text,
    observation=observation,
    observation_size=OBSERVATION_SIZE,
    observation_layout=OBSERVATION_LAYOUT,
    # levels: expert is the self-play network's search where a network ships for the table
    # size (two seats), and the learned PUCT search it beat elsewhere (the bots README, levels;
    # levels.json).  1,600 simulations think about as long as puct's 1,000 iterations.
    extra={"conformance_seeds": 300, "deep_seeds": 2, "max_steps": 5000,
           "levels": {"expert": "gumbel:simulations=1600,fallback=expert"}},
)
