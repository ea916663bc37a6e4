"""Azul: Stained Glass of Sintra (Michael Kiesling, Plan B Games) for 2-4 players.

An unofficial implementation: rules help in our own words (RULES.md), placeholder
values for unknown printed numbers in data.toml (marked ``reconstructed``).
"""

from pathlib import Path

from gemtable.core import Game, Option
from gemtable.core.i18n import mark

from .data import DATA
from .features import LAYOUT as OBSERVATION_LAYOUT
from .features import SIZE as OBSERVATION_SIZE
from .features import observation
from .heuristics import (
    VALUE_FEATURE_NAMES,
    heuristic,
    value_features,
    value_features_all,
)
from .rules import ACTIONS, GAME_ID, SintraState
from .text import render_text
from .words import explain

GAME = Game(
    id=GAME_ID,
    title=mark("Azul: Stained Glass of Sintra"),
    player_counts=(2, 3, 4),
    state_class=SintraState,
    actions=ACTIONS,
    options=(
        Option("palace_side", "A", ("A", "B"),
               mark("Palace side for every player: A scores ornaments, B scores finished windows × one colour."),
               label=mark("Palace board side (the same for everybody)"),
               choice_labels=(mark("Side A: ornaments score"), mark("Side B: windows score by colour"))),
    ),
    data_status="reconstructed" if DATA.reconstructed else "complete",
    owners=mark("Michael Kiesling (design), Plan B Games (publisher); unofficial implementation"),
    summary=mark("Draft coloured glass panes from factories onto pattern strips, moving your glazier "
                 "left to right, to glaze the palace windows over 6 rounds."),
    data=DATA,
    rules_path=str(Path(__file__).with_name("RULES.md")),
    play_path=str(Path(__file__).with_name("PLAY.md")),
    heuristic=heuristic,
    value_features=value_features,
    value_feature_names=VALUE_FEATURE_NAMES,
    explain=explain,
    value_features_all=value_features_all,
    render_text=render_text,
    observation=observation,
    observation_size=OBSERVATION_SIZE,
    observation_layout=OBSERVATION_LAYOUT,
    # puct_prior_fast: at four players the learned search's priors judge only the mover again
    # on each child (placed ahead of mcts seats in 51 % of comparisons in two 30-game runs,
    # against 40-43 % with every seat judged; see the bots README, "Learned evaluation")
    extra={"conformance_seeds": 100, "deep_seeds": 2, "max_steps": 5000, "puct_prior_fast": {4: 1}},
)

__all__ = ["GAME", "SintraState"]
