"""POST /api/tables/{id}/why: the rule a seat's tapped move breaks, from that seat's view.

Malformed questions get a 4xx with a sentence, never a 5xx (fuzzed), spectators and wrong
tokens are refused, and the answer is the kernel's ``State.explain``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import create
from .test_lobby import hosted
from .test_robustness import JSON

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _splendor(client):
    res = create(client, "splendor", 2, seats=[{"kind": "human"}, {"kind": "human"}], seed=5)
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    state = client.get(f"/api/tables/{tid}/state", headers={"X-Seat-Token": tokens[0]}).json()
    return tid, tokens, state


def ask(client, tid, body, token=None, **kw):
    headers = {"X-Seat-Token": token} if token else {}
    return client.post(f"/api/tables/{tid}/why", json=body, headers=headers, **kw)


def test_an_unaffordable_card_names_what_is_missing(client):
    tid, tokens, state = _splendor(client)
    legal = {str(e["json"]) for e in state["legal"]}
    cards = [c["id"] for row in state["view"]["board"] for c in row if c]
    buy = next({"type": "buy", "card": c} for c in cards if str({"type": "buy", "card": c}) not in legal)
    r = ask(client, tid, {"action": buy}, tokens[0])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["legal"] is False and body["version"] == 0
    assert body["reason"].startswith("Buying: you need ") and " more " in body["reason"]
    # a legal move is answered as legal; the other seat is told it is not its turn
    assert ask(client, tid, {"action": state["legal"][0]["json"]}, tokens[0]).json() == {"legal": True, "reason": None, "version": 0}
    other = ask(client, tid, {"action": state["legal"][0]["json"]}, tokens[1]).json()
    assert other["legal"] is False and "not your turn" in other["reason"]


def test_spectators_wrong_tokens_and_unknown_actions_are_refused(client):
    tid, tokens, _ = _splendor(client)
    r = ask(client, tid, {"action": {"type": "pass"}})
    assert r.status_code == 403 and "seat" in r.json()["detail"]
    assert ask(client, tid, {"action": {"type": "pass"}}, "nope").status_code == 403
    r = ask(client, tid, {"action": {"type": "fly", "to": "moon"}}, tokens[0])
    assert r.status_code == 400 and "has no action" in r.json()["detail"]
    assert ask(client, tid, {}, tokens[0]).status_code == 422
    assert ask(client, tid, {"action": [1, 2]}, tokens[0]).status_code == 422
    assert ask(client, "zzzz", {"action": {"type": "pass"}}, tokens[0]).status_code == 404
    r = client.post(f"/api/tables/{tid}/why?token={tokens[0]}", json={"action": {"type": "pass"}})
    assert r.status_code == 400


def test_a_waiting_table_has_nothing_to_explain(client):
    _, res = hosted(client)
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    r = ask(client, tid, {"action": {"type": "pass"}}, token)
    assert r.status_code == 409 and "not started" in r.json()["detail"]


def test_questions_are_rate_limited_per_seat(strict_client):
    res = create(strict_client, "toy", 2, seats=[{"kind": "human"}, {"kind": "human"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    codes = [ask(strict_client, tid, {"action": {"type": "pick", "n": 1}}, token).status_code for _ in range(40)]
    assert codes[0] == 200 and codes[-1] == 429


@SETTINGS
@given(body=st.fixed_dictionaries({}, optional={
    "action": st.fixed_dictionaries({"type": st.sampled_from(["pick", "buy", "x"]) | JSON},
                                    optional={"n": JSON, "card": JSON}) | JSON}) | JSON,
       seat=st.sampled_from([0, 1, None, "bad"]))
def test_why_never_500(client, body, seat):
    res = create(client, "toy", 2, seats=[{"kind": "human"}, {"kind": "human"}])
    tid, tokens = res["table"]["id"], [s["token"] for s in res["seats"]]
    token = tokens[seat] if isinstance(seat, int) else seat
    r = ask(client, tid, body, token)
    assert r.status_code < 500, r.text
    if r.status_code == 200:
        assert set(r.json()) == {"legal", "reason", "version"}
    else:
        assert 400 <= r.status_code < 500 and r.json()["detail"]


@SETTINGS
@given(raw=st.binary(max_size=60) | st.sampled_from([b'{"action": ' + b'{"a":' * 60 + b"1" + b"}" * 61,
                                                      b'{"action": {"type": "pick", "n": 1e999}}', b"\xff\xfe", b"[]"]))
def test_raw_why_bodies_never_500(client, raw):
    res = create(client, "toy", 2, seats=[{"kind": "human"}, {"kind": "human"}])
    tid, token = res["table"]["id"], res["seats"][0]["token"]
    r = client.post(f"/api/tables/{tid}/why", content=raw,
                    headers={"X-Seat-Token": token, "Content-Type": "application/json"})
    assert r.status_code < 500, r.text


def test_the_answer_shows_nothing_hidden_from_the_seat(client, monkeypatch):
    """A game whose rule text names the other seat's secret card: the server's answer is the
    same at every table (worked out from the asking seat's view), whatever that card is."""
    from gemtable.games.registry import all_games

    from ..core.test_explain import LEAKY

    monkeypatch.setitem(all_games(), "toy", LEAKY)
    reasons = set()
    for seed in range(8):
        res = create(client, "toy", 2, seats=[{"kind": "human"}, {"kind": "human"}], seed=seed)
        r = ask(client, res["table"]["id"], {"action": {"type": "pick", "n": 3}}, res["seats"][0]["token"])
        assert r.status_code == 200 and r.json()["legal"] is False
        reasons.add(r.json()["reason"])
    assert len(reasons) == 1
