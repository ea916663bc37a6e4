"""`gemtable loadtest`: tiny runs against private servers; the report's shape, no timing claims."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from gemtable.cli.main import app
from gemtable.measure.loadtest import Driver, _pg_bin, pressure, proc_sample, run_loadtest, table_worker

PHASE_KEYS = {"phase", "seconds", "actions_sent", "actions_acked", "actions_per_s", "own_ms", "other_ms",
              "errors", "games_finished", "server_cpu_pct", "server_rss_mb", "db_cpu_pct", "driver_cpu_pct",
              "driver_lag_ms"}
DIST_KEYS = {"n", "p50", "p95", "p99", "max"}


def _check_report(report, tables, workers, db):
    assert report["config"]["tables"] == tables and report["config"]["workers"] == workers
    assert report["config"]["db"] == db
    setup = report["setup"]
    assert setup["tables"] == tables and setup["seats_connected"] == 2 * tables
    assert setup["failures"] == {} and setup["rate_limited_429"] == 0
    # per table: two guests, the table, the join
    assert setup["http_requests"] >= 4 * tables
    assert [p["phase"] for p in report["phases"]] == ["warmup", "measured"]
    for row in report["phases"]:
        assert set(row) >= PHASE_KEYS
        assert set(row["own_ms"]) == DIST_KEYS and set(row["other_ms"]) == DIST_KEYS
        assert row["errors"]["total"] == 0, row["errors"]
        # every acknowledged action has its own-seat latency; the other seat saw it too
        assert row["own_ms"]["n"] == row["actions_acked"] <= row["actions_sent"]
        assert row["server_rss_mb"] > 0 and row["server_cpu_pct"] >= 0 and row["driver_cpu_pct"] >= 0
        if pressure() is not None:  # Linux with PSI: the machine's stalls are reported
            assert 0 <= row["machine_cpu_wait_pct"] and 0 <= row["machine_io_stall_ms"] <= 1000 * row["seconds"]
            assert 0 <= row["machine_steal_pct"] <= 100 * (os.cpu_count() or 1)
    measured = report["phases"][-1]
    assert measured["actions_acked"] > 0 and measured["other_ms"]["n"] > 0, (
        "no action was answered: with several workers, does each worker hear of the others' changes?")
    assert measured["own_ms"]["p50"] <= measured["own_ms"]["p99"] <= measured["own_ms"]["max"]
    assert report["errors"] == 0
    assert "worker_exits" not in report


def test_tiny_run_one_worker_sqlite_through_the_cli():
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    result = CliRunner().invoke(app, ["loadtest", "--tables", "2", "--seconds", "3", "--warmup", "1",
                                      "--think", "0.3", "--json"])
    assert result.exit_code == 0, result.output
    # the driver tunes its collector while it plays (as a server does) and puts it back after
    assert (gc.get_threshold(), gc.get_freeze_count()) == (thresholds, frozen)
    report = json.loads(result.output)
    _check_report(report, tables=2, workers=1, db="sqlite-temp")
    assert report["phases"][-1]["db_cpu_pct"] is None  # SQLite lives in the server process


@pytest.mark.skipif(_pg_bin() is None or (os.geteuid() == 0 and shutil.which("runuser") is None),
                    reason="PostgreSQL server binaries are not installed")
def test_tiny_run_two_workers_on_a_temporary_postgresql():
    pytest.importorskip("psycopg")
    # the two seats of each table sit on different workers: every action crosses workers
    report = run_loadtest(tables=3, seconds=3, warmup=1, think=0.3, workers=2, db="postgres-temp")
    _check_report(report, tables=3, workers=2, db="postgres-temp")
    assert report["phases"][-1]["db_cpu_pct"] is not None


def test_seats_of_a_table_sit_on_different_workers():
    driver = Driver(["http://a", "http://b"], tables=5, seconds=1, warmup=0, think=1, game="splendor",
                    players=2, seed=1, compression=True)
    for table in driver.tables:
        assert len({seat.base for seat in table.seats}) == 2
    # and the tables' first seats alternate between the workers
    assert [t.seats[0].base for t in driver.tables[:2]] == ["http://a", "http://b"]


def test_random_placement_is_seeded_and_sometimes_puts_a_tables_seats_together():
    def places(seed: int) -> list[list[str]]:
        driver = Driver(["http://a", "http://b"], tables=40, seconds=1, warmup=0, think=1, game="splendor",
                        players=2, seed=seed, compression=True, placement="random")
        return [[seat.base for seat in table.seats] for table in driver.tables]

    assert places(3) == places(3) and places(3) != places(4)
    together = sum(len(set(bases)) == 1 for bases in places(3))
    assert 5 <= together <= 35  # about half of 40 two-seat tables, with two workers
    assert {b for bases in places(3) for b in bases} == {"http://a", "http://b"}


def test_table_placement_sends_every_request_naming_a_table_to_the_worker_its_id_hashes_to():
    """``placement="table"``: guests and new tables round-robin (their paths name no table); the
    joins and WebSockets of a table (and of its rematch) at the worker its id hashes to."""
    bases = ["http://a", "http://b"]
    driver = Driver(bases, tables=6, seconds=1, warmup=0, think=1, game="splendor",
                    players=2, seed=1, compression=True, placement="table")
    calls: list[tuple[str, str]] = []
    ids = iter(f"t{i:02d}" for i in range(100))

    async def http(base, method, path, body=None, cookie=None):
        calls.append((base, path))
        if path == "/api/me":
            return {}, {"set-cookie": "gt_player=x; Path=/"}
        if path == "/api/tables":
            return {"table": {"id": next(ids)}, "seats": [{"token": "k0"}]}, {}
        if path.endswith("/rematch"):
            return {"table": next(ids), "token": "k"}, {}
        return {"token": "k1"}, {}

    driver.http = http

    async def scenario():
        for table in driver.tables:
            await driver.set_up(table)
            home = bases[table_worker(table.id, 2)]
            assert [seat.base for seat in table.seats] == [home, home]
            assert all(base == home for base, path in calls if path.startswith(f"/api/tables/{table.id}/"))
            await driver.rematch(table)
            assert [seat.base for seat in table.seats] == [bases[table_worker(table.id, 2)]] * 2

    asyncio.run(scenario())
    creators = [base for base, path in calls if path == "/api/tables"]
    assert creators == bases * 3  # round-robin
    homes = {table_worker(f"t{i:02d}", 2) for i in range(12)}
    assert homes == {0, 1}  # ids spread over both workers
    assert table_worker("abc", 3) == table_worker("abc", 3) < 3


def test_several_workers_need_postgresql_and_bounds_hold():
    with pytest.raises(ValueError, match="PostgreSQL"):
        run_loadtest(tables=1, seconds=1, workers=2)
    with pytest.raises(ValueError, match="tables"):
        run_loadtest(tables=2001, seconds=1)
    with pytest.raises(ValueError, match="seconds"):
        run_loadtest(tables=1, seconds=601)
    with pytest.raises(ValueError, match="placement"):
        run_loadtest(tables=1, seconds=1, placement="sticky")
    with pytest.raises(ValueError, match="players"):
        run_loadtest(tables=1, seconds=1, players=7)


def test_process_sample_reads_proc():
    cpu, rss = proc_sample([os.getpid()])
    assert cpu > 0 and rss > 1


def test_pressure_reads_the_stalls_and_the_stolen_time():
    got = pressure()
    if got is None:
        pytest.skip("no /proc/pressure here")
    assert set(got) == {"cpu_some", "io_full", "steal"}
    later = pressure()
    assert all(later[k] >= got[k] >= 0 for k in got)  # totals since boot only grow


def test_the_report_gives_server_cpu_per_action_and_its_kernel_share():
    report = run_loadtest(tables=2, seconds=3, warmup=1, think=0.3)
    row = report["phases"][-1]
    assert row["actions_acked"] > 0 and row["server_cpu_ms_per_action"] > 0
    assert row["server_cpu_ms_per_action"] == pytest.approx(
        10 * row["server_cpu_pct"] * row["seconds"] / row["actions_acked"], rel=0.05, abs=0.05)
    assert 0 <= row["server_kernel_pct_of_cpu"] <= 100


def test_spectators_watch_a_third_phase_and_their_cost_per_move_is_reported():
    report = run_loadtest(tables=2, seconds=3, warmup=1, think=0.3, spectators=2)
    assert [p["phase"] for p in report["phases"]] == ["warmup", "measured", "watched"]
    assert report["config"]["spectators"] == 2 and report["spectators_connected"] == 4
    assert report["errors"] == 0
    watched = report["phases"][-1]
    assert watched["actions_acked"] > 0 and watched["spectators_per_table"] == 2
    # every move reaches both spectators of its table (moves at the phase's edges may fall outside)
    assert watched["spectator_updates"] >= 2 * watched["actions_acked"] - 8
    assert watched["spectator_ms"]["n"] >= 2 * watched["actions_acked"] - 8 and watched["spectator_ms"]["n"] > 0
    assert watched["spectator_ms"]["p50"] <= watched["spectator_ms"]["max"] < 10_000
    measured = report["phases"][1]
    assert "spectator_ms" not in measured
    assert watched["server_cpu_ms_per_spectator"] == pytest.approx(
        (watched["server_cpu_ms_per_action"] - measured["server_cpu_ms_per_action"]) / 2, abs=0.002)


def test_spectators_out_of_bounds_are_refused():
    result = CliRunner().invoke(app, ["loadtest", "--tables", "1", "--seconds", "1", "--spectators", "51"])
    assert result.exit_code == 2 and "--spectators must be 0..50" in result.output


def test_profile_parts_sort_each_sample_by_the_first_part_that_matches():
    from gemtable.measure.profile import OTHER, read_folded, summarize

    loop = "Runner.run (asyncio/runners.py:1)"
    payload = "LiveTable.payload (gemtable/server/table.py:1)"
    stacks = [
        [loop, "Storage.store (gemtable/server/storage.py:1)", "encode (json/encoder.py:1) 3"],
        [loop, payload, "SplendorState.legal_actions (gemtable/games/splendor/rules.py:1) 2"],
        [loop, payload, "SplendorState.view (gemtable/games/splendor/rules.py:1)",
         "card_json (gemtable/games/splendor/rules.py:2) 4"],
        [loop, "send (websockets/protocol.py:1)", "encode (websockets/extensions/permessage_deflate.py:1) 1"],
        [loop + " 5"],
        ["main (somewhere.py:1) 5"],
    ]
    folded = "\n".join(";".join(frames) for frames in stacks)
    prof = summarize(read_folded(folded))
    assert prof["samples"] == 20
    assert prof["parts_pct"] == {"compression (permessage-deflate)": 5.0, "database commit": 15.0,
                                 "legal-move lists": 10.0, "view building": 20.0,
                                 "event loop and threads": 25.0, OTHER: 25.0}


def test_a_profiled_run_says_where_the_server_cpu_went(tmp_path):
    # busy enough that py-spy, which samples only the thread holding the GIL, finds work to
    # sample even when the machine's other core is taken by other tests
    result = CliRunner().invoke(app, ["loadtest", "--tables", "4", "--seconds", "3", "--warmup", "1",
                                      "--think", "0.05", "--profile", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    prof = json.loads(result.output)["profile"]
    assert prof["files"] == [str(tmp_path / "worker0.folded")] and os.path.getsize(prof["files"][0]) > 0
    assert prof["samples"] > 0 and 99 <= sum(prof["parts_pct"].values()) <= 101
