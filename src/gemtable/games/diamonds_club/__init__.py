"""Diamonds Club (Rüdiger Dorn, Ravensburger 2008): buy equipment on the market, trade it
for gems, build the most magnificent park.  Unofficial implementation; see RULES.md."""

from pathlib import Path

from gemtable.core import Game
from gemtable.core.i18n import mark

from .data import DATA
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
from .rules import ACTIONS, DiamondsClubState
from .text import render_text
from .words import explain

GAME = Game(
    id="diamonds_club",
    title="Diamonds Club",
    player_counts=(2, 3, 4),
    state_class=DiamondsClubState,
    actions=ACTIONS,
    options=(),
    data_status="reconstructed" if DATA.reconstructed else "complete",
    owners=mark("Rüdiger Dorn (design), Ravensburger (publisher); unofficial implementation"),
    summary=mark("Place coins on a market of equipment, animals and development steps, trade complete "
                 "pit/mining-rights/ship sets for gems, and spend them on buildings and forests for your park."),
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
    # puct_mix: the learned search's leaves blend in the heuristic half and half at every table
    # size (against mcts at 0.1 s per move, seed 12: two players 61.3 % of 40 games with the blend,
    # 51.2 % without; three 62.5 % vs 53.8 %; four 73.0 % vs 42.5 %; bots README)
    # levels: expert is the self-play network's search where a network ships for the table
    # size (two seats), and elsewhere the learned PUCT search that network beat (the bots
    # README, levels; levels.json).  1,400 simulations think about as long as puct's 1,000
    # iterations.
    extra={"conformance_seeds": 200, "deep_seeds": 2, "max_steps": 20_000,
           "puct_mix": {2: 0.5, 3: 0.5, 4: 0.5},
           "levels": {"expert": "gumbel:simulations=1400,fallback=expert"}},
)

__all__ = ["GAME", "DiamondsClubState"]
