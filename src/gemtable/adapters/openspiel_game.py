"""Register gemtable games with OpenSpiel (``pyspiel``) as Python games.

Each game is registered twice, with typed parameters (``players`` and the game's options
with their own types, booleans as booleans):

* ``gemtable_<id>`` (EXPLICIT_STOCHASTIC): every random event of setup and play (deals,
  refills, bag draws, public shuffles) is a chance node whose outcomes and probabilities
  come from the kernel's explicit-chance mode (:mod:`gemtable.core.chance`).  The initial
  state is the chance nodes of the setup; whoever samples the chance nodes (e.g.
  ``rl_environment.Environment(..., chance_event_sampler=ChanceEventSampler(seed))``)
  decides the deals.  No hidden generator exists, so a search that clones a state cannot
  see future draws.  Such a state holds the engine state before the pending player action
  plus the chance outcomes chosen so far, and replays the action on a clone with them
  until it finishes.
* ``gemtable_<id>_sampled`` (SAMPLED_STOCHASTIC): chance is sampled inside the engine from
  its seeded generator; ``new_initial_state()`` deals a new game each call, its seed drawn
  from a game-level generator seeded by ``rng_seed`` (``seed`` is an alias), so a fixed
  ``rng_seed`` gives the same sequence of deals.  Identical to the engines' own play.

States pickle, ``serialize()``/``deserialize_state()`` round-trip (the engine state as
JSON), and ``resample_from_infostate(player, sampler)`` is the engine's ``determinize``
(ISMCTSBot uses it).

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
from gemtable.core.chance import Chance, ChanceRng
from gemtable.core.registry import all_games, get_game

from . import common

_REGISTERED: dict[str, str] = {}


def _param_value(value: Any) -> Any:
    """An option value as a typed pyspiel parameter (bool, int, float or str)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


SAMPLED_SUFFIX = "_sampled"


def _game_type(game, explicit: bool) -> pyspiel.GameType:
    params: dict[str, Any] = {"players": min(game.player_counts)}
    if not explicit:
        params.update(rng_seed=0, seed=-1)
    for opt in game.options:
        params[opt.name] = _param_value(opt.default)
    mode = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=f"gemtable_{game.id}" + ("" if explicit else SAMPLED_SUFFIX),
        long_name=f"gemtable {game.title}" + ("" if explicit else " (sampled chance)"),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=mode.EXPLICIT_STOCHASTIC if explicit else mode.SAMPLED_STOCHASTIC,
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
    """Register one game (or all) with pyspiel, both variants; returns the names of the
    explicit-chance games (``gemtable_<id>``; the sampled one is that + ``_sampled``)."""
    names = []
    for gid in [game_id] if game_id else list(all_games()):
        if gid not in _REGISTERED:
            game = get_game(gid)
            for explicit in (True, False):
                game_type = _game_type(game, explicit)
                cls = type(f"OpenSpiel_{gid}" + ("" if explicit else SAMPLED_SUFFIX), (OpenSpielGame,),
                           {"gt_game": game, "game_type": game_type, "explicit": explicit})
                _CLASSES[game_type.short_name] = cls
                pyspiel.register_game(game_type, cls)
            _REGISTERED[gid] = f"gemtable_{gid}"
        names.append(_REGISTERED[gid])
    return names


_CLASSES: dict[str, type] = {}


def _load_game(short_name: str, params: dict[str, Any]):
    """Unpickle a game: register its module's games again if needed, then load it."""
    if short_name not in _CLASSES:
        register(short_name.removeprefix("gemtable_").removesuffix(SAMPLED_SUFFIX))
    return pyspiel.load_game(short_name, params)


def _load_state(game, data: str):
    return game.deserialize_state(data)


class OpenSpielGame(pyspiel.Game):
    """Base class; ``register`` derives one subclass per game and chance mode."""

    gt_game: Any = None
    game_type: Any = None
    explicit: bool = True

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
        if self.explicit:
            self.rng_seed = None
        else:
            seed = int(merged["seed"])
            self.rng_seed = seed if seed >= 0 else int(merged["rng_seed"])
        self.options = game.resolve_options({o.name: merged[o.name] for o in game.options})
        game.check_players(self.num_seats)
        self._deals = Rng(self.rng_seed or 0)  # sampled: one new deal per new_initial_state()
        self._resamples = Rng(0x5EED)  # mixed into resample_from_infostate's seeds
        self._cloning = 0
        self._setup_point = None  # explicit: the setup's first chance point (computed once)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(game.actions),
            max_chance_outcomes=int(game.state_class.chance_outcomes_bound) if self.explicit else 0,
            num_players=self.num_seats,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=int(game.extra.get("max_steps", 20_000)),
        )
        super().__init__(game_type, info, merged)

    def __reduce__(self):
        return _load_game, (self.game_type.short_name, dict(self.get_parameters()))

    def __reduce_ex__(self, protocol):
        return self.__reduce__()

    def new_initial_state(self):
        """Explicit: the setup's chance nodes.  Sampled: a new deal, its seed the next number
        of the generator seeded by rng_seed."""
        if self._cloning:  # pyspiel's clone (and deserialization) overwrites the holder
            return OpenSpielState(self, _Explicit(self) if self.explicit else _Engine(self, None))
        if self.explicit:
            return OpenSpielState(self, _Explicit(self).start_setup())
        return OpenSpielState(self, _Engine(self, self._deal()))

    def _deal(self):
        seed = self._deals.next64() >> 1
        return self.gt_game.new(self.num_seats, seed, **self.options)

    def deserialize_state(self, data: str):
        """``serialize()``'s inverse (no deal is consumed)."""
        self._cloning += 1
        try:
            return pyspiel.Game.deserialize_state(self, data)
        finally:
            self._cloning -= 1

    def state_from_engine(self, gt):
        """An OpenSpiel state at the engine state ``gt`` (a copy is taken): e.g. a position
        from a stored game, or a determinization."""
        gt = gt.clone()
        if self.explicit:
            gt.rng = ChanceRng()
            holder = _Explicit(self)
            holder.state = gt
        else:
            holder = _Engine(self, gt)
        self._cloning += 1
        try:
            state = OpenSpielState(self, holder)
        finally:
            self._cloning -= 1
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        return _Observer(self, iig_obs_type)


def _engine_from_json(game: OpenSpielGame, data: str | None):
    return None if data is None else game.gt_game.from_json(json.loads(data))


def _engine_to_json(state) -> str | None:
    return None if state is None else json.dumps(state.to_json(), sort_keys=True, separators=(",", ":"))


class _Engine:
    """Holds the engine state of a sampled-chance OpenSpiel state.

    pyspiel clones a Python state by making a new initial state and deep-copying the
    attributes into it; this holder's copy is the engine's own ``State.clone()`` and
    shares the immutable Game.  (The placeholder made during a clone holds None.)
    Pickled (and so serialized) as the engine state's JSON, RNG included."""

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

    def __reduce__(self):
        return _restore_engine, (self.game, _engine_to_json(self.get()))


def _restore_engine(game, data):
    return _Engine(game, _engine_from_json(game, data))


_SETUP = (-1, -1)


class _Explicit:
    """Holds an explicit-chance OpenSpiel state.

    ``state`` is the engine state at the last decision (or before the pending action);
    ``pending`` is None, ``_SETUP`` (the deal is being chosen; ``state`` is None) or the
    (seat, action id) being resolved; ``script`` the chance outcomes chosen for it so far;
    ``point`` the pending :class:`~gemtable.core.chance.ChancePoint` (None at a decision).
    The engine state's generator is a :class:`~gemtable.core.chance.ChanceRng`, so nothing
    in it decides a future draw."""

    __slots__ = ("game", "state", "pending", "script", "point")

    def __init__(self, game: OpenSpielGame) -> None:
        self.game = game
        self.state = None
        self.pending = None
        self.script: list = []
        self.point = None

    def start_setup(self) -> "_Explicit":
        self.pending, self.script = _SETUP, []
        g = self.game
        if g._setup_point is None:  # the first chance point of a deal is always the same
            self._resolve()
            g._setup_point = self.point
        self.point = g._setup_point
        return self

    def act(self, player: int, action_id: int) -> None:
        self.pending, self.script = (player, action_id), []
        self._resolve()

    def choose(self, outcome: int) -> None:
        if outcome not in self.point.outcomes:
            raise pyspiel.SpielError(f"{outcome} is not a possible outcome of this chance node "
                                     f"(possible: {list(self.point.outcomes)})")
        self.script.append(outcome)
        self._resolve()

    def _resolve(self) -> None:
        g = self.game
        if self.pending == _SETUP:
            chance = Chance.setup(g.gt_game, g.num_seats, g.options, self.script)
        else:
            p, a = self.pending
            chance = Chance.action(self.state, p, g.gt_game.actions[a], self.script)
        if chance.point is not None:
            self.point = chance.point
            return
        self.state = chance.result
        self.state.rng = ChanceRng()
        self.pending, self.script, self.point = None, [], None

    def __deepcopy__(self, memo):
        h = _Explicit(self.game)
        h.state = None if self.state is None else self.state.clone()
        h.pending, h.script, h.point = self.pending, self.script[:], self.point
        return h

    def __reduce__(self):
        return _restore_explicit, (self.game, _engine_to_json(self.state), self.pending, list(self.script))


def _restore_explicit(game, data, pending, script):
    h = _Explicit(game)
    h.state = _engine_from_json(game, data)
    if h.state is not None:
        h.state.rng = ChanceRng()
    if pending is not None:
        h.pending, h.script = tuple(pending), list(script)
        h._resolve()
    return h


class OpenSpielState(pyspiel.State):
    def __init__(self, game: OpenSpielGame, engine):
        super().__init__(game)
        self._engine = engine

    @property
    def gt(self):
        """The gemtable engine state (explicit chance: at a chance node, the state before
        the action being resolved; None while the setup is being dealt)."""
        e = self._engine
        return e.state if type(e) is _Explicit else e.get()

    def __reduce__(self):
        return _load_state, (self.get_game(), self.serialize())

    def __reduce_ex__(self, protocol):
        return self.__reduce__()

    def clone(self):
        """pyspiel's clone (history and move number kept), without dealing a throw-away
        initial state: the engine state is copied with the engine's own clone."""
        game = self._engine.game
        game._cloning += 1
        try:
            return pyspiel.State.clone(self)
        finally:
            game._cloning -= 1

    def _point(self):
        e = self._engine
        return e.point if type(e) is _Explicit else None

    def current_player(self):
        if self._point() is not None:
            return pyspiel.PlayerId.CHANCE
        if self.gt.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.gt.to_move()[0]

    def is_chance_node(self):
        return self._point() is not None

    def chance_outcomes(self):
        point = self._point()
        if point is None:
            return []
        return list(zip(point.outcomes, point.probabilities))

    def _legal_actions(self, player):
        return sorted(a.id for a in self.gt.legal_actions(player))

    def _apply_action(self, action):
        e = self._engine
        if type(e) is _Explicit:
            if e.point is not None:
                e.choose(action)
            else:
                e.act(e.state.to_move()[0], action)
            return
        p = self.gt.to_move()[0]
        self.gt.apply(p, self.gt.game.actions[action])

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            point = self._point()
            kind = point.kind if point is not None else "chance"
            return f"chance: {kind} {action}"
        return self.gt.game.actions[action].text

    def is_terminal(self):
        return self._point() is None and self.gt.is_over()

    def returns(self):
        gt = self.gt
        if self._point() is not None or not gt.is_over():
            return [0.0] * self.get_game().num_players()
        return [float(x) for x in gt.returns()]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state consistent with what ``player_id`` sees: the engine's ``determinize``
        (hidden hands and face-down order re-dealt), seeded from ``probability_sampler``.
        Only at decision nodes (ISMCTSBot asks at its root)."""
        if self._point() is not None:
            raise pyspiel.SpielError("resample_from_infostate is only available at decision nodes")
        game = self._engine.game
        seed = int(float(probability_sampler()) * (1 << 52)) ^ game._resamples.next64()
        det = self.gt.determinize(player_id, Rng(seed))
        return game.state_from_engine(det)

    def __str__(self):
        e = self._engine
        gt = self.gt
        view = None if gt is None else gt.view(None)
        if type(e) is _Explicit and e.point is not None:
            return json.dumps({"view": view, "pending": list(e.pending), "chance": e.script}, sort_keys=True)
        return json.dumps(view, sort_keys=True)


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
        if gt is None:  # the setup is being dealt: nothing to see yet
            self.tensor[:] = 0.0
            return
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
        if gt is None:  # the setup is being dealt: nothing to see yet
            return ""
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
