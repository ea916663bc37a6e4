"""``mcts``: information-set Monte Carlo tree search (single-observer ISMCTS).

Every iteration starts from a fresh *determinization* of the root:
``state.search_determinization(player, rng)`` re-samples everything the bot's seat
cannot see, so the search never reads the real hidden state; secret simultaneous
picks that other seats already made are taken back, so they choose again in the
tree (by their own statistics) rather than being fixed at a random sample.  All
determinizations share one tree (statistics are reused across them): edges are
keyed by (seat, action), and
UCB uses *availability* counts (how often an action was legal when its node was
visited) instead of parent visits, as in Cowling, Powley & Whitehouse (2012).

* Selection: UCB1 ``mean + c * sqrt(ln(available) / visits)`` for the seat to move,
  rewards seen from that seat.  Untried legal actions are tried first.
* Simultaneous secret picks (several seats in ``to_move()``): decoupled UCT: each
  seat of the group picks from its own statistics at that node, blind to the others'
  picks of the same round; the child is keyed by the joint pick.
* Multi-step turns need nothing special: each step is a decision of the same seat.
* Progressive bias (``prior=k``, on by default): the first time a seat decides at a
  node, each of its actions starts with k virtual visits worth its one-ply heuristic
  value (what the greedy bot sees), so the search starts from greedy's ranking and
  opponents' replies are tried best-first (``prior_all=0``: at the root only;
  ``prior=0``: off, untried actions are then tried first in random order).
* Rollout: moves from the game's ``rollout_policy`` (a cheap plausible move) where
  the game has one and ``policy=1``, else uniformly random; cut off after ``rollout``
  decisions (``-1``: play to the end; default 4, or the game's
  ``extra["rollout_length"]`` when its policy plays) and judged with the game's
  heuristic (estimated final scores; the current scores for a game without one),
  turned into a reward in [0, 1] per seat with a logistic of the relative margin
  over the best opponent.  A finished game is worth its real result (1 shared
  among the winners).
* Budget: ``iterations`` per move (deterministic given the seed), or ``seconds``
  per move (wall clock: not reproducible); with both, whichever ends first.  The
  clock starts when ``choose`` is called (seeding the root counts) and no iteration
  starts after the deadline, not even the first: a move whose time is used up by
  the seeding is chosen from the root's statistics as they stand (the prior, or
  the statistics carried over by ``reuse``).
* Stopping once decided (``stop=1``; off by default, on for the bots at the server's
  tables): every 8 iterations the search ends if the most visited root action (the one it
  would choose) leads the next by more visits than the iterations left could add.  Under an
  ``iterations`` budget that is exact: the move is the one the whole budget would choose,
  found sooner.  Under ``seconds`` the iterations left are estimated from the rate so far.
  Off by default because what reads a search's statistics rather than its move (training
  labels from root values) wants the whole budget.
* Tree reuse (``reuse=1``; off by default): after a search the bot keeps the node
  it chose from and follows the actions it is told about (``Bot.observe``, called
  by the game drivers for every action of every seat) down the tree: its own
  move, then the others' moves, each to the child keyed by it.  At the next
  ``choose``, if every action since the last search was followed, that node is the
  new root, with its statistics and subtree (the root prior is added for actions
  it has no statistics for; ``iterations`` counts only the new iterations).  The
  tree is dropped and the search starts afresh when an action was hidden from the
  seat (another seat's secret pick is told as None: a simultaneous round is
  followed only when every pick of it was seen), when no child matches, when the
  bot is asked for another game or seat, or when the position at ``choose`` is not
  the one after the last action it was told about (the seat's ``view`` differs:
  e.g. a driver that does not call ``observe``), so a subtree is not reused for
  a position its actions do not lead to.  Actions told while a search is running (a server thread) are queued and
  followed from that search's root.  A reused tree was grown on determinizations
  of an older position: its statistics mix in cards that have since been
  revealed differently.

Parameters: ``iterations`` (default 400), ``seconds``, ``c`` (exploration, 0.3),
``rollout`` (cut-off, default 4 or the game's ``rollout_length`` under its policy;
-1 = to the end), ``sharpness`` (logistic slope of the heuristic margin, default 10),
``margin_weight`` (share of the reward given to the final score margin at the end of
a game, default 0.1), ``prior`` (virtual visits, default 10), ``prior_all`` (1: every
node, the default; 0: the root only), ``policy`` (1: the game's rollout policy if it
has one, the default; 0: random rollouts), ``reuse`` (1: keep the subtree of the
position reached between moves; 0: a fresh tree every move, the default), ``stop`` (1: end
the search once its move is settled; 0: the whole budget, the default).

The defaults were chosen on 2-player games against ``greedy`` at 200 iterations
(Glassworks, 40 games each): plain UCT (c=0.7, rollout 8, no prior) 55 % of wins
over 200 games; prior at the root only 68–70 %; prior everywhere 80–83 %.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

from gemtable.core import Action, State, canonical

from .base import Bot, check_params, evaluate, register_bot

_N, _W, _A = 0, 1, 2
DEFAULT_ROLLOUT = 4  # playout cut-off (decisions) unless the game or the spec sets one


def playout(state: State, limit: int, policy: Any, rng: Any) -> None:
    """Play ``state`` forward at most ``limit`` decisions: the game's playout policy, else random."""
    steps = 0
    while not state.is_over() and steps < limit:
        p = state.to_move()[0]
        if policy is not None:
            state.step(p, policy(state, p, rng))
        else:
            acts = state.legal_actions(p)
            state.step(p, acts[rng.below(len(acts))])
        steps += 1


class _Node:
    __slots__ = ("children", "seeded", "stats", "visits")

    def __init__(self) -> None:
        self.seeded = 0  # bit mask of the seats whose statistics got the prior
        self.visits = 0  # selections made at this node (puct's late priors)
        # (seat, action id) -> [visits, total reward of that seat, availability]
        self.stats: dict[tuple[int, int], list] = {}
        # key of one decision, or a tuple of keys for a simultaneous round -> child
        self.children: dict[Any, _Node] = {}


class _Memory:
    """What ``reuse`` keeps between moves: where the told actions led in the last tree."""

    __slots__ = ("game", "node", "picks", "player", "told", "view")

    def __init__(self, game: str, player: int, node: _Node) -> None:
        self.game = game
        self.player = player
        self.node: _Node | None = node  # None once an action could not be followed
        self.picks: list[tuple[int, int]] = []  # picks seen of a simultaneous round under way
        self.told = 0  # actions followed since the search
        self.view: str | None = None  # the seat's view after the last one

    def follow(self, player: int, action_id: int) -> None:
        """Go down to the child keyed by this action (or by the whole round of picks)."""
        node = self.node
        key = (player, action_id)
        if not self.picks:
            child = node.children.get(key)
            if child is not None:
                self.node = child
                return
        picks = self.picks + [key]
        wanted = sorted(picks)
        pending = False
        for child_key, child in node.children.items():
            if type(child_key[0]) is not tuple:
                continue  # one seat's decision, not a round of picks
            if len(child_key) == len(picks):
                if sorted(child_key) == wanted:
                    self.node, self.picks = child, []
                    return
            elif len(child_key) > len(picks) and set(picks) <= set(child_key):
                pending = True
        if pending:
            self.picks = picks
        else:
            self.node = None


class MctsBot(Bot):
    name = "mcts"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        check_params(
            self.name, params,
            ("iterations", "seconds", "c", "rollout", "sharpness", "margin_weight", "prior", "prior_all",
             "policy", "reuse", "stop"),
        )
        super().__init__(seed, **params)
        self.seconds = float(params["seconds"]) if "seconds" in params else None
        default_iterations = None if self.seconds is not None else 400
        iterations = params.get("iterations", default_iterations)
        self.iterations = int(iterations) if iterations is not None else None
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("mcts: iterations must be at least 1")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("mcts: seconds must be positive")
        self.c = float(params.get("c", 0.3))
        # None: the game's own playout length (``extra["rollout_length"]``), else 4
        self.rollout = int(params["rollout"]) if "rollout" in params else None
        self.sharpness = float(params.get("sharpness", 10.0))
        self.margin_weight = float(params.get("margin_weight", 0.1))
        self.prior = float(params.get("prior", 10))
        if self.prior < 0:
            raise ValueError("mcts: prior must be 0 or more")
        self.prior_all = bool(int(params.get("prior_all", 1)))
        self.policy = bool(int(params.get("policy", 1)))
        self.reuse = bool(int(params.get("reuse", 0)))
        self.stop = bool(int(params.get("stop", 0)))
        self.last_iterations = 0  # iterations run for the last move (for reports)
        self.last_root: _Node | None = None  # the last search tree (for inspection)
        self.last_carried = 0  # visits of the seat's root actions kept from the last search
        self._memory: _Memory | None = None  # reuse: the tree kept and the walk down it
        self._told: deque = deque()  # reuse: (seat, action id or None, view) not yet followed

    # -- tree reuse ---------------------------------------------------------------
    @property
    def observes(self) -> bool:
        return self.reuse

    def observe(self, state: State, player: int, action: Action | None) -> None:
        if not self.reuse:
            return
        memory = self._memory
        # the seat's public fingerprint after the action, to check it against the next choose
        view = None if memory is None or action is None else canonical(state.view(memory.player))
        # queued, not followed here: a search may be running in another thread
        self._told.append((player, None if action is None else action.id, view))

    def _reused_root(self, state: State, player: int) -> _Node | None:
        """The kept node for this position if every action since the last search was followed."""
        told = self._told
        memory, self._memory = self._memory, None
        if memory is None:
            told.clear()
            return None
        while told:
            seat, action_id, view = told.popleft()
            if memory.node is None:
                continue
            if action_id is None:
                memory.node = None  # a secret action: where it went is unknown
            else:
                memory.follow(seat, action_id)
                memory.told += 1
                memory.view = view
        if memory.node is None or memory.picks or not memory.told:
            return None
        if memory.game != state.game.id or memory.player != player:
            return None
        if memory.view != canonical(state.view(player)):
            return None  # not the position the told actions led to
        return memory.node

    # -- the decision ---------------------------------------------------------
    def choose(self, state: State, player: int) -> Action:
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        actions = state.legal_actions(player)
        if not actions:
            raise ValueError(f"seat {player} has no legal action (not to move)")
        kept = self._reused_root(state, player) if self.reuse else None
        if len(actions) == 1:
            self.last_iterations = 0
            if kept is not None:  # nothing to search: keep following the tree
                self._memory = _Memory(state.game.id, player, kept)
            return actions[0]
        if kept is not None:
            root = kept
            self.last_carried = sum(st[_N] for (p, _), st in root.stats.items() if p == player)
            if self.prior and (not root.seeded >> player & 1
                               or any((player, a.id) not in root.stats for a in actions)):
                # as a fresh root would: the prior for the actions without statistics yet
                self._seed_root(root, state, player, actions)
        else:
            root = _Node()
            self.last_carried = 0
            if self.prior:
                self._seed_root(root, state, player, actions)
        done = 0
        begun = time.perf_counter() if self.stop else 0.0  # the iterations' rate, without the seeding
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            self._iterate(root, state.search_determinization(player, self.rng.spawn()))
            done += 1
            if self.stop and done % 8 == 0 and self._decided(root, player, actions, done, begun, deadline):
                break
        self.last_iterations = done
        self.last_root = root
        if self.reuse:
            self._memory = _Memory(state.game.id, player, root)
        best, best_key = None, None
        for action in actions:
            st = root.stats.get((player, action.id))
            if st is None:
                continue
            key = (st[_N], st[_W] / st[_N] if st[_N] else 0.0)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best if best is not None else actions[0]

    def _decided(self, root: _Node, player: int, actions: list[Action], done: int, begun: float,
                 deadline: float | None) -> bool:
        """``stop``: whether the action this search chooses can no longer change.  The most
        visited root action leads the next by more visits than the iterations left could add:
        those the ``iterations`` budget leaves (exact: the whole budget would choose the same),
        and with ``seconds`` those the time left allows at the rate so far (an estimate)."""
        left = math.inf if self.iterations is None else self.iterations - done
        if deadline is not None:
            now = time.perf_counter()
            left = min(left, (deadline - now) * done / max(now - begun, 1e-9))
        first = second = 0.0
        for action in actions:
            st = root.stats.get((player, action.id))
            n = st[_N] if st is not None else 0
            if n > first:
                first, second = n, first
            elif n > second:
                second = n
        return first - second > left

    def _seed_root(self, root: _Node, state: State, player: int, actions: list[Action]) -> None:
        """Progressive bias: each root action starts with ``prior`` virtual visits
        worth its one-ply heuristic value (as the greedy bot sees it) on one
        determinization, so the search starts from greedy's ranking."""
        self._seed(root, state.search_determinization(player, self.rng.spawn()), player, actions)

    def _seed(self, node: _Node, det: State, player: int, actions: list[Action]) -> None:
        k = self.prior
        for action in actions:
            child = det.clone()
            child.step(player, action)
            value = self._evaluate(child)[player]
            if (player, action.id) not in node.stats:
                node.stats[(player, action.id)] = [k, k * value, k]
        node.seeded |= 1 << player

    # -- one iteration ---------------------------------------------------------
    def _iterate(self, root: _Node, state: State) -> None:
        path: list[tuple[_Node, list[tuple[int, int]]]] = []
        node = root
        expanded = False
        while not expanded and not state.is_over():
            movers = state.to_move()
            group = set(movers)
            picks: list[tuple[int, int]] = []
            while True:
                p = movers[0]
                key, new = self._select(node, state, p)
                expanded = expanded or new
                picks.append(key)
                state.step(p, state.game.actions[key[1]])
                group.discard(p)
                if state.is_over():
                    break
                movers = state.to_move()
                # keep going only while the same simultaneous round is being picked
                if not group or not movers or not set(movers) <= group:
                    break
            path.append((node, picks))
            child_key = picks[0] if len(picks) == 1 else tuple(picks)
            child = node.children.get(child_key)
            if child is None:
                child = node.children[child_key] = _Node()
                expanded = True
            node = child
        rewards = self._rollout(state)
        for node, picks in path:
            stats = node.stats
            for key in picks:
                st = stats[key]
                st[_N] += 1
                st[_W] += rewards[key[0]]

    def _select(self, node: _Node, state: State, p: int) -> tuple[tuple[int, int], bool]:
        """UCB choice of seat ``p`` at ``node``; (key, whether an untried action was picked)."""
        stats = node.stats
        if self.prior and self.prior_all and not node.seeded >> p & 1:
            # progressive bias everywhere: seed a node's seat on its first visit
            self._seed(node, state, p, state.legal_actions(p))
        untried = []
        best_key, best_value = None, -math.inf
        c = self.c
        scored = []
        for action in state.legal_actions(p):
            key = (p, action.id)
            st = stats.get(key)
            if st is None:
                st = stats[key] = [0, 0.0, 0]
            st[_A] += 1
            if st[_N] == 0:
                untried.append(key)
            else:
                scored.append((key, st))
        if untried:
            return untried[self.rng.below(len(untried))], True
        for key, st in scored:
            n = st[_N]
            value = st[_W] / n + c * math.sqrt(math.log(st[_A]) / n)
            if value > best_value:
                best_key, best_value = key, value
        return best_key, False

    # -- rollout and evaluation -----------------------------------------------
    def _rollout(self, state: State) -> list[float]:
        rng = self.rng
        game = state.game
        policy = game.rollout_policy if self.policy else None
        limit = self.rollout
        if limit is None:
            limit = int(game.extra.get("rollout_length", DEFAULT_ROLLOUT)) if policy is not None else DEFAULT_ROLLOUT
        if limit < 0:
            limit = int(game.extra.get("max_steps", 20_000))
        playout(state, limit, policy, rng)
        return self._evaluate(state)

    def _evaluate(self, state: State) -> list[float]:
        """Reward in [0, 1] per seat: the result if the game is over, else the heuristic."""
        n = state.num_players
        if state.is_over():
            returns = state.returns()
            if self.margin_weight:
                w = self.margin_weight
                shaped = self._shape([float(x) for x in state.scores()])
                return [(1 - w) * returns[p] + w * shaped[p] for p in range(n)]
            return returns
        return self._shape([evaluate(state, q) for q in range(n)])

    def _shape(self, values: list[float]) -> list[float]:
        """Reward in [0, 1] per seat: logistic of its margin over the best other seat."""
        n = len(values)
        if n == 1:
            return [1.0]
        scale = max(1.0, max(abs(v) for v in values))
        out = []
        k = self.sharpness
        for p in range(n):
            other = max(values[q] for q in range(n) if q != p)
            x = k * (values[p] - other) / scale
            out.append(1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x)))))
        return out


register_bot("mcts", MctsBot)
