"""undo_span: how many trailing actions a seat may take back (the online-play contract)."""

from __future__ import annotations

from gemtable.core import State, undo_span
from gemtable.core import undo as undo_module

F, T = False, True  # checkpoint flags


def test_exported_from_the_kernel():
    assert undo_span is undo_module.undo_span


def test_empty_history_has_nothing_to_undo():
    assert undo_span([], 0) == 0
    assert undo_span([], 0, whole_turns=True) == 0


def test_trailing_own_non_checkpoint_actions():
    # seat 0: two decisions of one turn (e.g. take, then place) after seat 1's turn
    history = [(1, F), (0, F), (0, F)]
    assert undo_span(history, 0) == 2
    assert undo_span(history[:2], 0) == 1


def test_another_seats_action_last_blocks_the_undo():
    history = [(0, F), (0, F), (1, F)]
    assert undo_span(history, 0) == 0
    assert undo_span(history, 1) == 1
    assert undo_span(history, 2) == 0  # a seat that never acted


def test_a_checkpoint_is_never_taken_back_and_stops_the_run():
    assert undo_span([(0, F), (0, T)], 0) == 0  # the last action drew or revealed something
    assert undo_span([(0, F), (0, T), (0, F), (0, F)], 0) == 2  # back to, not through, it
    assert undo_span([(0, T)], 0) == 0


def test_simultaneous_picks_interleaved():
    # simultaneous secret picks: seat 2 picked, then seat 0; seat 1's last pick reveals (checkpoint)
    history = [(2, F), (0, F)]
    assert undo_span(history, 0) == 1
    assert undo_span(history, 2) == 0  # seat 0 acted after seat 2: the run stops there
    history.append((1, T))
    assert [undo_span(history, s) for s in range(3)] == [0, 0, 0]


def test_whole_turns_goes_back_through_bots_and_checkpoints():
    # seat 0 is the human; seats 1 and 2 are bots whose moves draw cards (checkpoints)
    history = [(0, F), (0, T), (1, T), (2, F), (1, F)]
    assert undo_span(history, 0, whole_turns=True) == 4  # seat 0's last decision and the 3 bot moves
    assert undo_span(history, 0) == 0  # the normal rule: another seat acted last
    # one undo removed those 4: the next one takes back the previous own decision only
    assert undo_span(history[:1], 0, whole_turns=True) == 1
    # the own last action counts even when it is a checkpoint
    assert undo_span([(1, F), (0, T)], 0, whole_turns=True) == 1
    # a seat that never acted has nothing to take back
    assert undo_span(history, 3, whole_turns=True) == 0


def test_is_checkpoint_defaults_to_true_in_the_kernel():
    class Bare(State):  # a game that does not override is_checkpoint
        pass

    assert Bare().is_checkpoint(0, None) is True  # type: ignore[arg-type]
