"""Register gemtable games with OpenSpiel (``pyspiel``) as Python games.

Each game becomes ``gemtable_<id>`` with parameters ``players`` and ``seed``
(plus the game's options as strings).  Chance is sampled inside the engine
(SAMPLED_STOCHASTIC) from the seeded RNG, so ``seed`` fixes the deal.  Games
with simultaneous secret picks are exposed as sequential imperfect-information
games: the pickers decide one after another and nobody observes the others'
picks, which is the same information as at the table.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from gemtable.games.registry import all_games, get_game

_REGISTERED: dict[str, str] = {}


def _game_type(game) -> pyspiel.GameType:
    params: dict[str, Any] = {"players": min(game.player_counts), "seed": 0}
    for opt in game.options:
        params[opt.name] = str(opt.default)
    return pyspiel.GameType(
        short_name=f"gemtable_{game.id}",
        long_name=f"gemtable {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(game.player_counts),
        min_num_players=min(game.player_counts),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=game.observation is not None,
        parameter_specification=params,
    )


def register(game_id: str | None = None) -> list[str]:
    """Register one game (or all) with pyspiel; returns the OpenSpiel names."""
    names = []
    for gid in [game_id] if game_id else list(all_games()):
        if gid in _REGISTERED:
            names.append(_REGISTERED[gid])
            continue
        game = get_game(gid)
        game_type = _game_type(game)

        cls = type(f"OpenSpiel_{gid}", (OpenSpielGame,), {"gt_game": game, "game_type": game_type})
        pyspiel.register_game(game_type, cls)
        _REGISTERED[gid] = game_type.short_name
        names.append(game_type.short_name)
    return names


class OpenSpielGame(pyspiel.Game):
    """Base class; ``register`` derives one subclass per game (pyspiel wants a class)."""

    gt_game: Any = None
    game_type: Any = None

    def __init__(self, params: dict[str, Any] | None = None):
        params = params or {}
        game, game_type = self.gt_game, self.game_type
        defaults = game_type.parameter_specification
        merged = {k: params.get(k, v) for k, v in defaults.items()}
        self.num_seats = int(merged["players"])
        self.seed = int(merged["seed"])
        self.options = game.resolve_options({o.name: merged[o.name] for o in game.options})
        game.check_players(self.num_seats)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(game.actions),
            max_chance_outcomes=0,
            num_players=self.num_seats,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=int(game.extra.get("max_steps", 20_000)),
        )
        super().__init__(game_type, info, merged)

    def new_initial_state(self):
        return OpenSpielState(self, self.gt_game.new(self.num_seats, self.seed, **self.options))

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self)


class OpenSpielState(pyspiel.State):
    def __init__(self, game: OpenSpielGame, state):
        super().__init__(game)
        self.gt = state

    def current_player(self):
        if self.gt.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.gt.to_move()[0]

    def _legal_actions(self, player):
        return sorted(a.id for a in self.gt.legal_actions(player))

    def _apply_action(self, action):
        p = self.gt.to_move()[0]
        self.gt.apply(p, self.gt.game.actions[action])

    def _action_to_string(self, player, action):
        return self.gt.game.actions[action].text

    def is_terminal(self):
        return self.gt.is_over()

    def returns(self):
        if not self.gt.is_over():
            return [0.0] * self.gt.num_players
        return [float(x) for x in self.gt.returns()]

    def __str__(self):
        return json.dumps(self.gt.view(None), sort_keys=True)


class _Observer:
    """PyObserver: the game's numeric observation (if any) and the JSON view."""

    def __init__(self, game: OpenSpielGame):
        size = game.gt_game.observation_size if game.gt_game.observation else 0
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OpenSpielState, player: int):
        fn = state.gt.game.observation
        if fn is not None:
            self.tensor[:] = fn(state.gt, player)

    def string_from(self, state: OpenSpielState, player: int):
        return json.dumps(state.gt.view(player), sort_keys=True)
