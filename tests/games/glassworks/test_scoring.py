"""Scoring: rows, the two tallest columns, overflow, tie-break; the seed's examples."""

from __future__ import annotations

from gemtable.games.glassworks.rules import column_points, row_points, score_of

from .helpers import make


def test_seed_example_row_filled_at_spaces_1_2_3_scores_4():
    # only the bottom row has cells, in columns 1, 2 and 3
    assert row_points([1, 1, 1, 0, 0, 0, 0]) == 4


def test_seed_example_row_filled_at_spaces_2_3_4_scores_0():
    assert row_points([0, 1, 1, 1, 0, 0, 0]) == 0


def test_rows_count_consecutive_cells_from_column_1():
    # row 1: columns 1-5 (run 5: 9; column 6 breaks it), row 2: columns 1-2 (2; column 3 breaks
    # the run), row 3: column 1 (1), row 4: column 7 alone (0)
    assert row_points([3, 2, 1, 2, 1, 0, 4]) == 9 + 2 + 1 + 0
    assert row_points([5] * 7) == 5 * 16


def test_two_tallest_columns_score_their_highest_cell():
    # tallest: column 4 (height 5 → 4 + 5 - 1 = 8) and column 2 (height 3 → 2 + 3 - 1 = 4)
    assert column_points([1, 3, 2, 5, 0, 0, 0]) == 8 + 4


def test_seed_example_three_tied_columns_take_the_two_leftmost():
    # columns 2, 5 and 7 all of height 3: columns 2 and 5 score (4 and 7), not column 7 (9)
    assert column_points([1, 3, 0, 0, 3, 0, 3]) == 4 + 7


def test_tie_for_second_tallest_takes_the_leftmost():
    # column 6 is tallest; columns 1 and 3 tie for second: column 1 scores
    assert column_points([2, 0, 2, 0, 0, 4, 0]) == (6 + 4 - 1) + (1 + 2 - 1)


def test_empty_glassworks_scores_nothing():
    assert column_points([0] * 7) == 0 and row_points([0] * 7) == 0


def test_overflow_loses_3_points_each():
    assert score_of([0] * 7, 4) == -12


def test_full_score_of_a_hand_made_glassworks():
    s = make(columns=[[("white", 3), ("purple", 2), ("yellow", 2), ("orange", 1)], [("black", 1)]],
             overflow=[["white", "white"], []])
    # rows: row1 run 4 → 6, row2 run 3 → 4, row3 run 1 → 1  = 11
    # columns: column 1 (h3 → 3) and column 2 (h2, leftmost of the tie with column 3 → 3) = 6
    # overflow: 2 × −3 = −6
    assert s.score_parts(0) == {"rows": 11, "columns": 6, "overflow": -6}
    assert s.scores() == [11.0, 2.0]  # seat 2: one row cell (1) + column 1 at height 1 (1)


def test_tie_break_fewer_overflow_pieces():
    # seat 1: row 1 run of 3 (4) + columns 1 and 2 at height 1 (1 + 2) = 7, no overflow
    # seat 2: row 1 run of 3 (4) + column 3 at height 3 (5) + column 1 (1) − 3 = 7, one overflow
    s = make(columns=[[("white", 1), ("purple", 1), ("yellow", 1)],
                      [("white", 1), ("purple", 1), ("yellow", 3)]],
             overflow=[[], ["orange"]])
    assert s.scores() == [7.0, 7.0]
    assert s.ranking() == [1, 2] and s.winners() == [0]
    assert "fewer pieces in overflow" in s.tiebreak_explained()


def test_full_tie_is_shared():
    s = make(columns=[[("white", 2)], [("purple", 2)]], overflow=[["white"], ["orange"]])
    assert s.scores()[0] == s.scores()[1]
    assert s.ranking() == [1, 1] and s.returns() == [0.5, 0.5]
