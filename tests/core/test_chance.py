"""The kernel's chance vocabulary and its explicit-chance mode (gemtable.core.chance).

The ordinary generator must deal and play every game exactly as before the vocabulary
existed: ``test_ordinary_rng_plays_every_game_as_before`` compares fingerprints of full
random playouts with values recorded from the code before the change (commit 71649cd, by
running this file: ``python tests/core/test_chance.py``).
"""

from __future__ import annotations

import hashlib
import itertools
import sys
from fractions import Fraction

import pytest

from gemtable.core import Rng, i18n
from gemtable.core.chance import Chance, ChancePoint, ChanceRng, sample
from gemtable.core.game import canonical
from gemtable.games.registry import all_games

# fingerprint(game, players, seed[, options]) recorded from commit 71649cd (before the vocabulary)
RECORDED = {
    "diamonds_club/2/1": "a1a36ee0d50545d9",
    "diamonds_club/2/2024": "fcbf2243fa9bb064",
    "diamonds_club/3/1": "da3316d33c03ed64",
    "diamonds_club/3/2024": "df6de6e927178248",
    "diamonds_club/4/1": "ef7a9b33af8b5777",
    "diamonds_club/4/2024": "85a418b9d6630958",
    "glassworks/2/1": "6077b5602884b3e0",
    "glassworks/2/2024": "e9b9757767385c8a",
    "glassworks/3/1": "98008ac0049101f1",
    "glassworks/3/2024": "a624736f0f3a0026",
    "glassworks/4/1": "1d65e56f7cbc0489",
    "glassworks/4/2024": "150ba49636cb791d",
    "glassworks/5/1": "e017cc75dd067ffb",
    "glassworks/5/2024": "e18d7a869a3e24f2",
    "glassworks/5/7/overflow_counts_toward_end=True,pair_on_own_tile=True": "277133f0977e7d32",
    "glassworks/5/7/overflow_counts_toward_end=False,pair_on_own_tile=False": "f77eae82be5e98a0",
    "glassworks/5/7/overflow_counts_toward_end=False,pair_on_own_tile=True": "36399873c8b321aa",
    "mille_fiori/2/1": "ab5a656ed188bd53",
    "mille_fiori/2/2024": "e02f36785d696aed",
    "mille_fiori/3/1": "016707e1ccf99aa7",
    "mille_fiori/3/2024": "8b99f17fec0fb4ca",
    "mille_fiori/4/1": "95b436ce5bb18577",
    "mille_fiori/4/2024": "1e5a12d3f27cb591",
    "mille_fiori/4/7/draft=tactical": "cc0fe0d314808441",
    "sintra/2/1": "7c6a501d93192782",
    "sintra/2/2024": "5c8b8a1495c34de2",
    "sintra/3/1": "4ddfa91337785f75",
    "sintra/3/2024": "706eafb45660f584",
    "sintra/4/1": "871ac13071860171",
    "sintra/4/2024": "918cd2a1068e24e9",
    "sintra/4/7/palace_side=B": "c3c0b4ebb55b0fcb",
    "splendor/2/1": "575f1535c412b111",
    "splendor/2/2024": "50b98f8b7bac4996",
    "splendor/3/1": "5d895dc073545f5a",
    "splendor/3/2024": "1888772ddf239385",
    "splendor/4/1": "23133fbad81f99df",
    "splendor/4/2024": "0a1110e3eb8948c9",
}


def _english(event):
    """An event with its texts (messages) rendered in English, as events were recorded."""
    out = dict(event, text=i18n.render(event["text"]))
    if "public" in event:
        out["public"] = _english(event["public"])
    return out


def _recorded_view(view):
    """A view without the keys added since the recording for other languages (a prompt as a
    message beside its English): what a seat sees is otherwise unchanged."""
    return {k: v for k, v in view.items() if k != "prompt_message"}


def fingerprint(game, n, seed, **options):
    """sha256 (16 hex digits) of a full random playout: the events of every action, every
    seat's and the spectator's view after it, every seat's determinization every 7th
    action, and the final state (RNG included)."""
    h = hashlib.sha256()
    s = game.new(n, seed, **options)
    pick = Rng(seed * 7919 + n)
    steps = 0
    while not s.is_over():
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        a = acts[pick.below(len(acts))]
        h.update(canonical([_english(ev) for ev in s.apply(p, a)]).encode())
        for v in [None, *range(n)]:
            h.update(canonical(_recorded_view(s.view(v))).encode())
        if steps % 7 == 0:  # the bots' determinizations too
            for v in range(n):
                h.update(canonical(s.determinize(v, Rng(steps)).to_json()).encode())
        steps += 1
    h.update(canonical(s.to_json()).encode())
    return h.hexdigest()[:16]


def _cases():
    for gid in sorted(all_games()):
        g = all_games()[gid]
        for n in g.player_counts:
            for seed in (1, 2024):
                yield f"{gid}/{n}/{seed}", g, n, seed, {}
        for opts in g.option_sets()[1:]:
            key = ",".join(f"{k}={v}" for k, v in sorted(opts.items()))
            yield f"{gid}/{max(g.player_counts)}/7/{key}", g, max(g.player_counts), 7, opts


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_ordinary_rng_plays_every_game_as_before(gid):
    cases = [c for c in _cases() if c[1].id == gid]
    assert cases and all(c[0] in RECORDED for c in cases)
    got = {key: fingerprint(g, n, seed, **opts) for key, g, n, seed, opts in cases}
    assert got == {key: RECORDED[key] for key in got}


# -- the vocabulary with the ordinary generator: exactly the old arithmetic --------------
def _old_bag_draw(rng, bag):  # Glassworks before the vocabulary
    i = rng.below(len(bag))
    x = bag[i]
    bag[i] = bag[-1]
    bag.pop()
    return x


def _old_counted(rng, bag, total):  # Sintra before the vocabulary
    r = rng.below(total)
    c = 0
    while r >= bag[c]:
        r -= bag[c]
        c += 1
    bag[c] -= 1
    return c


def test_ordinary_vocabulary_is_the_old_arithmetic():
    a, b = Rng(11), Rng(11)
    pile = list(range(20))
    a.shuffle_face_down(pile)
    ref = list(range(20))
    b.shuffle(ref)
    assert pile == ref and a == b
    assert [a.draw(pile) for _ in range(5)] == [ref.pop() for _ in range(5)] and pile == ref
    bag1, bag2 = [3, 1, 4, 1, 5, 9, 2, 6] * 3, [3, 1, 4, 1, 5, 9, 2, 6] * 3
    assert [a.draw_blind(bag1) for _ in range(20)] == [_old_bag_draw(b, bag2) for _ in range(20)]
    assert bag1 == bag2 and a == b
    c1, c2 = [4, 0, 7, 1, 2], [4, 0, 7, 1, 2]
    for _ in range(14):
        assert a.draw_counted(c1, sum(c1)) == _old_counted(b, c2, sum(c2))
    assert c1 == c2 == [0, 0, 0, 0, 0] and a == b


# -- explicit chance ------------------------------------------------------------------
def _point(fn):
    with pytest.raises(ChancePoint) as info:
        fn()
    return info.value


def test_chance_points_name_outcomes_and_probabilities():
    pile = [7, 3, 7, 9]
    p = _point(lambda: ChanceRng().draw(pile))
    assert p.kind == "draw" and p.outcomes == (3, 7, 9) and p.probabilities == (0.25, 0.5, 0.25)
    assert pile == [7, 3, 7, 9]  # nothing taken
    p = _point(lambda: ChanceRng().draw_counted([2, 0, 6], 8))
    assert p.outcomes == (0, 2) and p.probabilities == (0.25, 0.75)
    p = _point(lambda: ChanceRng().below(3))
    assert p.kind == "below" and p.outcomes == (0, 1, 2) and sum(p.probabilities) == pytest.approx(1)
    r = ChanceRng([7, 9])
    assert r.draw(pile) == 7 and r.draw_blind(pile) == 9 and sorted(pile) == [3, 7]
    counts = [2, 0, 6]
    assert ChanceRng([2]).draw_counted(counts, 8) == 2 and counts == [2, 0, 5]
    with pytest.raises(ValueError, match="not a possible outcome"):
        ChanceRng([1]).draw_counted([2, 0, 6], 8)
    with pytest.raises(ValueError, match="not a possible outcome"):
        ChanceRng([5]).draw([1, 2])
    with pytest.raises(ValueError, match="not a possible outcome"):
        ChanceRng([3]).below(3)


def test_face_down_piles_are_not_ordered_in_explicit_mode():
    pile = list(range(10))
    ChanceRng().shuffle_face_down(pile)
    assert pile == list(range(10))  # the order is chosen draw by draw
    for bad in (lambda r: r.next64(), lambda r: r.random(), lambda r: r.spawn()):
        with pytest.raises(TypeError, match="explicit-chance"):
            bad(ChanceRng())


def _enumerate(run):
    """Every finished result of ``run`` with its exact probability (the whole chance tree)."""
    out = {}
    todo = [((), Fraction(1))]
    while todo:
        script, prob = todo.pop()
        c = Chance(run, script)
        if c.point is None:
            key = tuple(c.result)
            out[key] = out.get(key, 0) + prob
            continue
        for v, p in zip(c.point.outcomes, c.point.probabilities):
            todo.append((script + (v,), prob * Fraction(p).limit_denominator(1000)))
    return out


def _shuffled(items):
    def run(rng):
        xs = list(items)
        rng.shuffle(xs)
        return xs

    return run


def test_a_public_shuffle_is_single_draws_giving_every_order_equally():
    dist = _enumerate(_shuffled("abcd"))
    assert set(dist) == set(itertools.permutations("abcd"))
    assert set(dist.values()) == {Fraction(1, 24)}
    third = Fraction(1, 3)
    assert _enumerate(_shuffled([1, 1, 2])) == {(1, 1, 2): third, (1, 2, 1): third, (2, 1, 1): third}


def test_clone_keeps_the_unread_script():
    r = ChanceRng([1, 0, 2])
    r.below(2)
    c = r.clone()
    assert isinstance(c, ChanceRng) and c.below(2) == 0 and c.below(3) == 2
    assert r.below(2) == 0  # the original is untouched by the clone's reads


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_explicit_setup_and_action_leave_their_input_untouched(gid):
    game = all_games()[gid]
    n = min(game.player_counts)
    r = Rng(4)
    c = Chance.setup(game, n)
    assert c.point is not None  # every game deals something at random
    while c.point is not None:
        c.choose(sample(c.point, r))
    s = c.result
    for _ in range(200):
        if s.is_over():
            break
        before = s.to_json()
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        c = Chance.action(s, p, acts[r.below(len(acts))])
        while c.point is not None:
            c.choose(sample(c.point, r))
        assert s.to_json() == before
        s = c.result
    with pytest.raises(ValueError, match="no chance point"):
        c.choose(0)


if __name__ == "__main__":  # print the fingerprints of the current code (to record them)
    for key, g, n, seed, opts in _cases():
        print(f'    "{key}": "{fingerprint(g, n, seed, **opts)}",')
    sys.exit(0)
