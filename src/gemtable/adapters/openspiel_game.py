"""Register gemtable games with OpenSpiel (``pyspiel``) as Python games.

Each game becomes ``gemtable_<id>`` with typed parameters: ``players`` (int),
``rng_seed`` (int; ``seed`` is kept as an alias) and the game's options with their
own types (booleans as booleans).  Chance is sampled inside the engine
(SAMPLED_STOCHASTIC) from the seeded RNG: ``new_initial_state()`` deals a new game
each call, its seed drawn from a game-level generator seeded by ``rng_seed`` (so a
fixed ``rng_seed`` gives the same sequence of deals).  Explicit chance nodes are
planned; until then there are no chance nodes.

Games with simultaneous secret picks are exposed as sequential imperfect-information
games: the pickers decide one after another and nobody observes the others' picks,
which is the same information as at the table.

Observers honour ``iig_obs_type``: the default (public + the seat's private
information) is the game's numeric observation; public-only zeroes every private
field; private-only is the seat's private fields alone; ``ALL_PLAYERS`` appends
every other seat's private fields.  Perfect-recall information states are not
provided (``provides_information_state_*`` are False and asking for one raises).
``clone()`` is the engine's own state clone.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from gemtable.core import Rng
from gemtable.games.registry import all_games, get_game

from . import common

_REGISTERED: dict[str, str] = {}


def _param_value(value: Any) -> Any:
    """An option value as a typed pyspiel parameter (bool, int, float or str)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _game_type(game) -> pyspiel.GameType:
    params: dict[str, Any] = {"players": min(game.player_counts), "rng_seed": 0, "seed": -1}
    for opt in game.options:
        params[opt.name] = _param_value(opt.default)
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
        provides_observation_tensor=common.observation_size(game) > 0,
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
        params = dict(params or {})
        game, game_type = self.gt_game, self.game_type
        defaults = game_type.parameter_specification
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ValueError(f"{game.title} has no parameter {', '.join(unknown)} "
                             f"(parameters: {', '.join(defaults)})")
        merged = {k: params.get(k, v) for k, v in defaults.items()}
        self.num_seats = int(merged["players"])
        seed = int(merged["seed"])
        self.rng_seed = seed if seed >= 0 else int(merged["rng_seed"])
        self.options = game.resolve_options({o.name: merged[o.name] for o in game.options})
        game.check_players(self.num_seats)
        self._deals = Rng(self.rng_seed)  # one new deal per new_initial_state()
        self._cloning = 0
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
        """A new deal: its seed is the next number of the generator seeded by rng_seed."""
        if self._cloning:  # pyspiel's clone makes a state only to overwrite it: no deal
            return OpenSpielState(self, _Engine(self, None))
        return OpenSpielState(self, _Engine(self, self._deal()))

    def _deal(self):
        seed = self._deals.next64() >> 1
        return self.gt_game.new(self.num_seats, seed, **self.options)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        return _Observer(self, iig_obs_type)


class _Engine:
    """Holds the engine state of an OpenSpiel state.

    pyspiel clones a Python state by making a new initial state and deep-copying the
    attributes into it; this holder's copy is the engine's own ``State.clone()`` and
    shares the immutable Game.  (The placeholder made during a clone holds None.)"""

    __slots__ = ("game", "state")

    def __init__(self, game: OpenSpielGame, state) -> None:
        self.game = game
        self.state = state

    def get(self):
        if self.state is None:
            self.state = self.game._deal()
        return self.state

    def __deepcopy__(self, memo):
        return _Engine(self.game, self.get().clone())


class OpenSpielState(pyspiel.State):
    def __init__(self, game: OpenSpielGame, engine: _Engine):
        super().__init__(game)
        self._engine = engine

    @property
    def gt(self):
        """The gemtable engine state."""
        return self._engine.get()

    def clone(self):
        """pyspiel's clone (history and move number kept), without dealing a throw-away
        initial state: the engine state is copied with the engine's own clone."""
        game = self._engine.game
        game._cloning += 1
        try:
            return pyspiel.State.clone(self)
        finally:
            game._cloning -= 1

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


_NONE = pyspiel.PrivateInfoType.NONE
_SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER
_ALL = pyspiel.PrivateInfoType.ALL_PLAYERS


class _Observer:
    """PyObserver honouring ``iig_obs_type`` (see the module docstring)."""

    def __init__(self, game: OpenSpielGame, iig_obs_type=None):
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.perfect_recall:
            raise pyspiel.SpielError(
                f"{game.gt_game.title} does not provide perfect-recall information states "
                "(provides_information_state_string/tensor are False); use observations")
        self.game = game.gt_game
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info
        layout = self.game.observation_layout
        size = common.observation_size(self.game)
        if size == 0:
            self.kind, size = "none", 0
        elif self.private == _ALL:
            self.kind = "all" if self.public else "all_private"
            size = common.all_players_size(self.game) if self.public else \
                common.max_seats(self.game) * (layout.private_size if layout else 0)
        elif self.private == _SINGLE:
            self.kind = "default" if self.public else "private"
            if not self.public:
                size = layout.private_size if layout else 0
        else:
            self.kind = "public" if self.public else "none"
            if not self.public:
                size = 0
        if size == 0:
            self.kind = "none" if self.kind in ("private", "all_private") else self.kind
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OpenSpielState, player: int):
        gt, game, kind = state.gt, self.game, self.kind
        if kind == "default":
            common.observe(game, gt, player, self.tensor)
        elif kind == "public":
            common.public_observation(game, gt, player, self.tensor)
        elif kind == "private":
            common.private_observation(game, gt, player, self.tensor)
        elif kind == "all":
            common.all_players_observation(game, gt, player, self.tensor)
        elif kind == "all_private":
            layout = game.observation_layout
            k = layout.private_size
            self.tensor[:] = 0.0
            n = gt.num_players
            for i in range(n):
                common.private_observation(game, gt, (player + i) % n, self.tensor[i * k:(i + 1) * k])

    def string_from(self, state: OpenSpielState, player: int):
        gt = state.gt
        if self.kind in ("default",):
            return json.dumps(gt.view(player), sort_keys=True)
        if self.kind == "public":
            return json.dumps(gt.view(None), sort_keys=True)
        if self.kind in ("all", "all_private"):
            n = gt.num_players
            return json.dumps({f"seat {(player + i) % n}": gt.view((player + i) % n) for i in range(n)},
                              sort_keys=True)
        if self.kind == "private":
            layout = self.game.observation_layout
            if layout is None:
                return ""
            obs = layout.fill(gt, player)
            return json.dumps({f.name: [round(float(x), 6) for x in obs[f.slice]]
                               for f in layout.fields if f.private})
        return ""
