"""A PettingZoo AEC environment for any registered gemtable game.

Agents are ``player_0`` … ``player_{n-1}``.  Actions are integers of the game's
fixed action space; the observation is a dict with ``observation`` (the game's
numeric encoding when it has one, else its JSON view as text) and
``action_mask``.  Rewards are given at the end: 1 shared among the winners.
Simultaneous secret picks are presented one agent at a time; the view hides
the picks of the others, so no agent learns more than at the table.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from gemtable.core import Rng
from gemtable.games.registry import get_game


class GemtableAECEnv(AECEnv):
    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game_id: str, num_players: int = 2, render_mode: str | None = None, **options: Any):
        super().__init__()
        self.game = get_game(game_id)
        self.game.check_players(num_players)
        self.options = self.game.resolve_options(options)
        self.num_players = num_players
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"gemtable_{game_id}_v0")
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        n_actions = len(self.game.actions)
        if self.game.observation is not None:
            obs_space = spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32)
        else:
            obs_space = spaces.Text(max_length=1_000_000, charset=_PRINTABLE)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": spaces.MultiBinary(n_actions)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    # -- AEC API -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = Rng(np.random.SeedSequence().entropy & ((1 << 63) - 1)).next64() if seed is None else seed
        self.state = self.game.new(self.num_players, seed, **self.options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._mover()

    def _mover(self) -> str:
        movers = self.state.to_move()
        return f"player_{movers[0]}" if movers else self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        p = int(agent.split("_")[1])
        mask = np.zeros(len(self.game.actions), dtype=np.int8)
        for a in self.state.legal_actions(p):
            mask[a.id] = 1
        if self.game.observation is not None:
            obs: Any = np.asarray(self.game.observation(self.state, p), dtype=np.float32)
        else:
            obs = json.dumps(self.state.view(p), sort_keys=True, separators=(",", ":"))
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        p = int(agent.split("_")[1])
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(p, self.game.actions[int(action)])  # IllegalAction names the rule
        if self.state.is_over():
            returns = self.state.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
                self.infos[a] = {"scores": self.state.scores(), "ranking": self.state.ranking()}
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.agent_selection = self._mover()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        return json.dumps(self.state.view(None), indent=1)

    def close(self) -> None:
        pass


_PRINTABLE = frozenset(chr(c) for c in range(32, 127))


def env(game_id: str, num_players: int = 2, **options: Any) -> GemtableAECEnv:
    return GemtableAECEnv(game_id, num_players, **options)
