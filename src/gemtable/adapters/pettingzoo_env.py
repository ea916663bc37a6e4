"""PettingZoo environments (AEC and Parallel) for any registered gemtable game.

Agents are ``player_0`` … ``player_{n-1}``.  Actions are integers of the game's
fixed action space (``Discrete(len(game.actions))``).  Each observation is a dict:

* ``observation``: the game's numeric observation (float32, seats listed from the
  observer), a ``Box`` bounded by the game's named layout
  (``game.observation_layout.describe()`` lists every index); a game without a
  numeric observation gives its JSON view as text instead;
* ``action_mask``: int8, 1 for every legal action of that agent now (all zeros
  when the agent is not to move).

Rewards are given at the end only: 1 shared among the winners, 0 otherwise (the
sum over agents is 1).  ``state()`` is the global state for centralised critics:
seat 0's observation followed by the private fields of every other seat.

* :class:`GemtableAECEnv` (``env()``/``raw_env()``): one decision at a time; the
  selected agent is the seat to move.  Simultaneous secret picks (Mille Fiori's
  default draft) are asked one picker after another; no picker sees the others'
  picks, so nobody learns more than at the table.
* :class:`GemtableParallelEnv` (``parallel_env()``): every seat that must decide
  now acts in the same step -- all pickers of a simultaneous draft at once; in
  sequential phases only the seat to move acts and the actions given for the
  other agents are ignored (their mask is all zeros; ``info["acting"]`` says who acts).

``max_cycles`` (optional) truncates the game after that many cycles, a cycle being one
step of every live agent, as in PettingZoo:

* Parallel: a cycle is one parallel step (every live agent steps once; only the seats that
  must decide act), so the game is truncated after ``max_cycles`` steps.
* AEC: only the seat to move is selected, and seats do not all take the same number of
  decisions (Splendor's gem returns, Sintra's strip choice, River Valley Glassworks' opening
  placements are further decisions of the same seat), so a cycle is a round of the table: one
  cycle is completed each time play moves on round the seat order past the seat that moved
  first after ``reset()``.  The game is truncated when the ``max_cycles``-th round is
  complete, never in the middle of a seat's turn.  Where every turn is one decision, each
  agent steps exactly ``max_cycles`` times.  PettingZoo's ``max_cycles_test`` (which wants
  every agent iterated exactly ``max_cycles + 1`` times) passes through the Parallel
  environment and PettingZoo's ``parallel_to_aec`` conversion, for every game and player count.

``illegal_action`` says what a step with an action outside the agent's mask does:

* ``"raise"`` (default): :class:`~gemtable.core.IllegalAction` naming the agent, the action
  and the rule it breaks; nothing changes.
* ``"terminate"`` (PettingZoo's classic convention, as ``TerminateIllegalWrapper``): the
  offender gets ``illegal_reward`` (default -1), every other agent 0, every agent is
  terminated (not truncated) and ``info["illegal_action"]`` says who did what and why.
* ``"random"``: a legal action drawn from the environment's own generator (seeded by the
  game seed) is played instead and the game goes on; the offender's ``info["illegal_action"]``
  records it (with ``"played"``) and the offender gets ``illegal_reward`` (default 0) as a
  penalty added to that step's reward.  Unmasked random sampling then plays whole games.

Seeding: ``reset(seed=s)`` deals game seed ``s``; a later ``reset()`` without a seed deals a
new game drawn from a generator seeded by ``s``.  Same seed and same actions give the same
game byte for byte, in every ``illegal_action`` mode.
Rendering: ``render_mode`` None or ``"ansi"`` (the game's terminal rendering as text).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from gemtable.core import IllegalAction
from gemtable.core.registry import get_game

from . import common

RENDER_MODES = ("ansi",)
ILLEGAL_ACTION_MODES = ("raise", "terminate", "random")
DEFAULT_ILLEGAL_REWARD = {"raise": 0.0, "terminate": -1.0, "random": 0.0}


class _Base:
    """What both environments share: game, spaces, masks, observations, seeding."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def _setup(self, game_id: str, num_players: int, render_mode: str | None,
               max_cycles: int | None, illegal_action: str, illegal_reward: float | None,
               options: dict[str, Any]) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r} "
                             "(gemtable environments render as text only)")
        if max_cycles is not None and int(max_cycles) < 1:
            raise ValueError("max_cycles must be a positive number of cycles")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {', '.join(map(repr, ILLEGAL_ACTION_MODES))}, "
                             f"not {illegal_action!r}")
        if illegal_reward is not None and illegal_action == "raise":
            raise ValueError("illegal_reward needs illegal_action='terminate' or 'random' "
                             "(with 'raise' an illegal action is refused, never rewarded)")
        self.illegal_action = illegal_action
        self.illegal_reward = float(DEFAULT_ILLEGAL_REWARD[illegal_action] if illegal_reward is None
                                    else illegal_reward)
        self.game = get_game(game_id)
        self.game.check_players(num_players)
        self.options = self.game.resolve_options(options)
        self.num_players = num_players
        self.render_mode = render_mode
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.metadata = dict(self.metadata, name=f"gemtable_{game_id}_v0")
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.n_actions = len(self.game.actions)
        layout = self.game.observation_layout
        self._numeric = common.observation_size(self.game) > 0
        if layout is not None:
            obs_space: spaces.Space = spaces.Box(layout.low, layout.high, dtype=np.float32)
            state_low = np.concatenate([layout.low] + [layout.low[layout.private_mask]] *
                                       (common.max_seats(self.game) - 1))
            state_high = np.concatenate([layout.high] + [layout.high[layout.private_mask]] *
                                        (common.max_seats(self.game) - 1))
            self.state_space = spaces.Box(state_low, state_high, dtype=np.float32)
        elif self._numeric:  # a third-party game without a layout: no known bounds
            obs_space = spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32)
            self.state_space = obs_space
        else:
            obs_space = spaces.Text(max_length=1_000_000, charset=_PRINTABLE)
            self.state_space = obs_space
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": spaces.MultiBinary(self.n_actions)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self.game_state = None
        self._seeder: np.random.Generator | None = None
        self._illegal_rng: np.random.Generator | None = None
        self.steps = 0
        self.cycles = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            if self._seeder is None:
                self._seeder = np.random.default_rng()
            game_seed = int(self._seeder.integers(0, 2**63 - 1))
        self.game_state = self.game.new(self.num_players, game_seed, **self.options)
        # replacements for illegal actions ("random") come from their own stream of the game seed
        self._illegal_rng = np.random.default_rng([game_seed, 1])
        self.steps = 0
        self.cycles = 0

    def _resolve(self, agent: str, p: int, action: Any) -> tuple[Any, dict[str, Any] | None]:
        """The game action seat ``p`` plays for ``action`` and, if ``action`` is illegal, the
        record of it (None instead of a game action when the game ends on it)."""
        reason = None
        act = None
        if action is None:
            reason = "No action was given, but this agent must decide now."
        else:
            i = int(action)
            if not 0 <= i < self.n_actions:
                reason = f"Action {i} is outside the action space (0 to {self.n_actions - 1})."
            else:
                act = self.game.actions[i]
                reason = self.game_state.check(p, act)
        if reason is None:
            return act, None
        shown = None if action is None else int(action)
        if self.illegal_action == "raise":
            what = "no action" if act is None else f"action {shown} ({act.text})"
            raise IllegalAction(f"{agent} may not play {what}: {reason}")
        record: dict[str, Any] = {"agent": agent, "action": shown, "reason": reason}
        if self.illegal_action == "terminate":
            return None, record
        legal = sorted(a.id for a in self.game_state.legal_actions(p))
        played = legal[int(self._illegal_rng.integers(len(legal)))]
        record["played"] = played
        return self.game.actions[played], record

    def _mask(self, p: int) -> np.ndarray:
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if not self.game_state.is_over():
            ids = [a.id for a in self.game_state.legal_actions(p)]
            if ids:
                mask[ids] = 1
        return mask

    def _observe(self, p: int) -> dict[str, Any]:
        if self._numeric:
            obs: Any = common.observe(self.game, self.game_state, p,
                                      np.empty(common.observation_size(self.game), np.float32))
        else:
            obs = json.dumps(self.game_state.view(p), sort_keys=True, separators=(",", ":"))
        return {"observation": obs, "action_mask": self._mask(p)}

    def state(self) -> np.ndarray:
        """Global state: seat 0's observation, then every other seat's private fields."""
        if self.game_state is None:
            raise RuntimeError("call reset() before state()")
        if not self._numeric:  # every seat's view (never the generator: it foretells chance)
            views = [self.game_state.view(p) for p in range(self.num_players)]
            return json.dumps(views, sort_keys=True)  # type: ignore[return-value]
        return common.all_players_observation(self.game, self.game_state, 0)

    def render(self) -> str | None:
        if self.render_mode is None or self.game_state is None:
            return None
        return common.render_text(self.game_state, None)

    def _end_info(self) -> dict[str, Any]:
        return {"scores": self.game_state.scores(), "ranking": self.game_state.ranking()}

    def close(self) -> None:
        pass


class GemtableAECEnv(_Base, AECEnv):
    """Agent-environment-cycle API: the selected agent is the seat to move."""

    def __init__(self, game_id: str, num_players: int = 2, render_mode: str | None = None,
                 max_cycles: int | None = None, illegal_action: str = "raise",
                 illegal_reward: float | None = None, **options: Any):
        AECEnv.__init__(self)
        self._setup(game_id, num_players, render_mode, max_cycles, illegal_action, illegal_reward,
                    options)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._mover()
        self._first = self._index[self.agent_selection]  # rounds of the table start here

    def _mover(self) -> str:
        movers = self.game_state.to_move()
        return self.possible_agents[movers[0]] if movers else self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        return self._observe(self._index[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        p = self._index[agent]
        act, illegal = self._resolve(agent, p, action)  # "raise": IllegalAction names the rule
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self.infos[agent] = {}
        if act is None:  # "terminate": the offender forfeits, the game ends here
            self.rewards[agent] = self.illegal_reward
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"illegal_action": illegal}
            self._accumulate_rewards()
            return
        self.game_state.step(p, act)  # legal: checked by _resolve
        self.steps += 1
        if self.game_state.is_over():
            returns = self.game_state.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
                self.infos[a] = self._end_info()
        else:
            nxt = self._mover()
            q = self._index[nxt]
            if q != p and self._passes_first(p, q):
                self.cycles += 1
            self.agent_selection = nxt
            if self.max_cycles is not None and self.cycles >= self.max_cycles:
                for a in self.agents:
                    self.truncations[a] = True
        if illegal is not None:  # "random": the offender hears of it, with the penalty
            self.rewards[agent] += self.illegal_reward
            self.infos[agent]["illegal_action"] = illegal
        self._accumulate_rewards()

    def _passes_first(self, p: int, q: int) -> bool:
        """Does play moving on from seat ``p`` to seat ``q`` (forward round the table) reach
        the seat that moved first, completing a round?"""
        n = self.num_players
        ahead = (self._first - p) % n
        return 0 < ahead <= (q - p) % n


class GemtableParallelEnv(_Base, ParallelEnv):
    """Parallel API: all seats that must decide now act in one step."""

    def __init__(self, game_id: str, num_players: int = 2, render_mode: str | None = None,
                 max_cycles: int | None = None, illegal_action: str = "raise",
                 illegal_reward: float | None = None, **options: Any):
        self._setup(game_id, num_players, render_mode, max_cycles, illegal_action, illegal_reward,
                    options)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        return self._all_obs(), self._infos()

    def _all_obs(self) -> dict[str, Any]:
        return {a: self._observe(self._index[a]) for a in self.agents}

    def _infos(self) -> dict[str, dict]:
        movers = set(self.game_state.to_move())
        return {a: {"acting": self._index[a] in movers} for a in self.agents}

    def step(self, actions: dict[str, int]):
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        movers = self.game_state.to_move()
        missing = [self.possible_agents[p] for p in movers if self.possible_agents[p] not in actions]
        if missing:
            raise ValueError(f"no action given for {', '.join(missing)}, who must act now")
        # every mover's action is checked against the position they all saw (simultaneous picks
        # are secret, so one seat's pick never changes what another may pick), then applied
        chosen = []
        illegal: dict[str, dict[str, Any]] = {}
        for p in movers:
            agent = self.possible_agents[p]
            act, record = self._resolve(agent, p, actions[agent])  # "raise": IllegalAction
            chosen.append((p, act))
            if record is not None:
                illegal[agent] = record
        agents = self.agents
        rewards = {a: 0.0 for a in agents}
        terminations = {a: False for a in agents}
        truncations = {a: False for a in agents}
        if self.illegal_action == "terminate" and illegal:  # the offenders forfeit
            first = next(iter(illegal.values()))
            for a in illegal:
                rewards[a] = self.illegal_reward
            terminations = {a: True for a in agents}
            infos = {a: {"illegal_action": illegal.get(a, first), "offenders": list(illegal),
                         "acting": False} for a in agents}
            obs = self._all_obs()
            self.agents = []
            return obs, rewards, terminations, truncations, infos
        for p, act in chosen:  # simultaneous picks go through apply(), which checks each again
            if len(chosen) > 1:
                self.game_state.apply(p, act)
            else:
                self.game_state.step(p, act)
        self.steps += 1
        self.cycles = self.steps  # every live agent steps once per parallel step
        if self.game_state.is_over():
            returns = self.game_state.returns()
            rewards = {a: float(returns[self._index[a]]) for a in agents}
            terminations = {a: True for a in agents}
            infos = {a: dict(self._end_info(), acting=False) for a in agents}
        else:
            infos = self._infos()
            if self.max_cycles is not None and self.cycles >= self.max_cycles:
                truncations = {a: True for a in agents}
        for a, record in illegal.items():  # "random": played instead, with the penalty
            rewards[a] += self.illegal_reward
            infos[a]["illegal_action"] = record
        obs = self._all_obs()
        if self.game_state.is_over() or any(truncations.values()):
            self.agents = []
        return obs, rewards, terminations, truncations, infos


_PRINTABLE = frozenset(chr(c) for c in range(32, 127))


def raw_env(game_id: str, num_players: int = 2, **kwargs: Any) -> GemtableAECEnv:
    """The AEC environment without PettingZoo's checking wrappers."""
    return GemtableAECEnv(game_id, num_players, **kwargs)


def env(game_id: str, num_players: int = 2, **kwargs: Any):
    """The AEC environment wrapped like PettingZoo's classic games (order enforcing,
    out-of-bounds actions rejected).  ``kwargs``: ``render_mode``, ``max_cycles``,
    ``illegal_action``, ``illegal_reward`` and the game's options."""
    e = raw_env(game_id, num_players, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def parallel_env(game_id: str, num_players: int = 2, **kwargs: Any) -> GemtableParallelEnv:
    return GemtableParallelEnv(game_id, num_players, **kwargs)
