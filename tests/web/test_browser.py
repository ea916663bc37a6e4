"""Browser tests: Playwright driving Debian's chromium against a live server.

Every registered game is played to the end by clicking (board first, the
list of choices as fallback) against a bot; screenshots of each board are
kept in tests/web/artifacts/.
"""

from __future__ import annotations

import random
import re

import pytest

from gemtable.games.registry import all_games

from .conftest import ARTIFACTS

pytestmark = pytest.mark.browser

GAMES = sorted(all_games())
MAX_CLICKS = 1500


def wait_ready(page, timeout=30000):
    """Until the page shows a state where we can click or the game is over."""
    page.wait_for_function(
        """() => document.body.dataset.over === '1' ||
                 (document.querySelector('#actions button.action') && !document.querySelector('#board.busy'))""",
        timeout=timeout,
    )


def click_once(page, rnd, prefer_board=0.7):
    """Click one legal action, on the board when it offers one, else in the list."""
    version = page.evaluate("document.body.dataset.version")
    board = page.locator("#board svg .act[data-action]")
    in_dialog = page.locator("#board svg .board-dialog .act[data-action]")
    if in_dialog.count():  # an open dialog on the board covers the actions under it
        board = in_dialog
    n_board = board.count()
    on_board = bool(n_board) and rnd.random() < prefer_board
    if on_board:
        board.nth(rnd.randrange(n_board)).click()
    else:
        buttons = page.locator("#actions button.action")
        buttons.nth(rnd.randrange(buttons.count())).click()
    # a move that only loses points asks first (Sintra: every pane breaks): play it
    page.wait_for_function("v => document.body.dataset.version !== v || document.getElementById('confirm-dialog')",
                           arg=version, timeout=15000)
    if page.locator("#confirm-dialog").count():
        page.click("#confirm-yes")
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
    return on_board

def play_a_few(page, rnd, moves):
    """Make up to ``moves`` random moves by clicking (fewer if the game ends), then wait for the table."""
    for _ in range(moves):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        click_once(page, rnd)
    wait_ready(page)


def assert_readable(page):
    """No JavaScript placeholder leaked into the drawn board."""
    text = page.locator("#board").text_content()
    for bad in ("undefined", "NaN", "[object Object]"):
        assert bad not in text, f"the board shows {bad!r}"


def create_table(page, server, game_id, players=2, seat_kinds=None):
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    page.select_option("#game", game_id)
    page.select_option("#players", str(players))
    kinds = seat_kinds or (["human"] + ["bot:random"] * (players - 1))
    for i, kind in enumerate(kinds):
        page.locator(".seat-kind").nth(i).select_option(kind)
    page.click("#create")


def play_to_end(page, rnd, max_clicks=MAX_CLICKS, on_click=None):
    """Click until the game is over; returns (clicks, clicks made on the board)."""
    clicks = board_clicks = 0
    while True:
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            return clicks, board_clicks
        board_clicks += click_once(page, rnd)
        clicks += 1
        if on_click:
            on_click(clicks)
        assert clicks < max_clicks, "the game did not end"


@pytest.mark.parametrize("game_id", GAMES)
def test_play_a_full_game_by_clicking(page, live_server, artifacts, game_id):
    rnd = random.Random(game_id)
    create_table(page, live_server, game_id)
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    wait_ready(page)
    page.screenshot(path=str(artifacts / f"{game_id}-start.png"), full_page=True)
    shots = {8: "mid"}

    def shoot(clicks):
        if clicks in shots:
            wait_ready(page)
            page.screenshot(path=str(artifacts / f"{game_id}-{shots[clicks]}.png"), full_page=True)
            page.check("#patterns-toggle")  # the colour-blind drawing of the same position
            assert_readable(page)
            page.screenshot(path=str(artifacts / f"{game_id}-{shots[clicks]}-patterns.png"), full_page=True)
            page.uncheck("#patterns-toggle")
        if clicks % 10 == 0:
            assert_readable(page)

    clicks, board_clicks = play_to_end(page, rnd, on_click=shoot)
    assert board_clicks > clicks // 3, "the board should offer most choices as clickable elements"
    result = page.locator("#result")
    result.wait_for(state="visible")
    assert re.search(r"wins|Shared win", result.inner_text())
    assert "null" not in result.inner_text() and "undefined" not in result.inner_text()
    assert_readable(page)
    page.screenshot(path=str(artifacts / f"{game_id}-end.png"), full_page=True)
    assert page.js_errors == []
    # nothing was fetched from anywhere but this server
    host = live_server.url.split("://")[1]
    outside = [u for u in page.requests if u.split("://", 1)[-1].split("/")[0] != host and not u.startswith("data:")]
    assert outside == [] and len(page.requests) > 5
    # the game's own renderer drew every position (no fallback to the generic one)
    assert page.evaluate("document.body.dataset.renderError || ''") == ""


def test_glassworks_boards_show_the_rarity_chart_and_the_row_track(page, live_server, artifacts):
    rnd = random.Random(13)
    create_table(page, live_server, "glassworks")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    play_a_few(page, rnd, 6)
    boards = page.locator("#board svg g.works")
    assert boards.count() == 2
    chart = {"white": "22", "purple": "22", "light blue": "17", "dark blue": "17",
             "light green": "12", "dark green": "12", "yellow": "9", "orange": "9"}  # no black below 5 players
    for i in range(2):
        board = boards.nth(i)
        entries = board.locator(".gw-rarity-entry")
        shown = {entries.nth(k).get_attribute("data-colour"): entries.nth(k).locator("text").text_content()
                 for k in range(entries.count())}
        assert shown == chart
        track = board.locator(".gw-row-track text").all_text_contents()
        assert track[:7] == ["1*", "2*", "4", "6*", "9*", "12*", "16*"], track  # only 3 cells → 4 is known
        assert board.locator(".gw-row-points").count() == 5  # each row's current points
    page.screenshot(path=str(artifacts / "glassworks-rarity-row-track.png"), full_page=True)
    assert page.js_errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""


def test_reload_mid_game_and_continue(page, live_server, artifacts):
    rnd = random.Random(5)
    create_table(page, live_server, GAMES[-1])
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    play_a_few(page, rnd, 4)
    version = page.evaluate("document.body.dataset.version")
    log_before = page.locator("#log li").count()
    page.reload()
    page.wait_for_function("v => document.body.dataset.version === v", arg=version)
    assert page.evaluate("document.body.dataset.seat") == "0"
    assert page.locator("#log li").count() == log_before
    wait_ready(page)
    click_once(page, rnd)
    assert int(page.evaluate("document.body.dataset.version")) > int(version)
    assert page.js_errors == []


def test_invite_link_in_a_second_browser_context(browser, live_server, artifacts):
    game_id = "splendor" if "splendor" in GAMES else GAMES[0]
    ctx1 = browser.new_context(viewport={"width": 1400, "height": 950})
    ctx2 = browser.new_context(viewport={"width": 1400, "height": 950})
    ctx3 = browser.new_context(viewport={"width": 1400, "height": 950})
    try:
        host = ctx1.new_page()
        create_table(host, live_server, game_id, seat_kinds=["human", "human"])
        host.wait_for_selector(".created .invite")
        invites = [host.locator(".invite").nth(i).input_value() for i in range(2)]
        assert all("#token=" in url for url in invites) and invites[0] != invites[1]
        host.locator(".play-seat").first.click()
        host.wait_for_url(re.compile(r"#token="))
        guest = ctx2.new_page()
        guest.goto(invites[1])
        guest.wait_for_function("() => document.body.dataset.seat === '1'")
        wait_ready(host)
        rnd = random.Random(2)
        # seat 1 moves; the guest sees it and then it is the guest's turn
        v = host.evaluate("document.body.dataset.version")
        click_once(host, rnd, prefer_board=0)
        guest.wait_for_function("v => document.body.dataset.version !== v", arg=v)
        # play a few alternating moves from both browsers
        for _ in range(6):
            for pg in (guest, host):
                if pg.locator("#actions button.action").count():
                    wait_ready(pg)
                    click_once(pg, rnd, prefer_board=0)
        guest.screenshot(path=str(artifacts / "invite-guest.png"), full_page=True)
        # the guest's own seat is marked, and it cannot see the host's token
        assert "(you)" in guest.locator(".seat-item.you").inner_text()
        assert invites[0].split("#token=")[1] not in guest.content()
        # a third browser without a token watches: no seat, no choices
        watcher = ctx3.new_page()
        watcher.goto(invites[0].split("#")[0])
        watcher.wait_for_function("() => document.body.dataset.version !== undefined")
        assert watcher.evaluate("document.body.dataset.seat") == ""
        assert watcher.locator("#actions button.action").count() == 0
        assert "You are watching" in watcher.locator("#seats").inner_text()
    finally:
        ctx1.close()
        ctx2.close()
        ctx3.close()


def test_replay_viewer_steps_back_and_forward(page, live_server, artifacts):
    game_id = "glassworks" if "glassworks" in GAMES else GAMES[0]  # a short game
    rnd = random.Random(11)
    create_table(page, live_server, game_id)
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    play_to_end(page, rnd)
    page.click("#replay-link")
    page.wait_for_selector("#counter")
    total = int(page.inner_text("#counter").split("/")[1])
    assert page.inner_text("#counter") == f"move {total} / {total}"
    page.click("#back")
    page.click("#back")
    assert page.inner_text("#counter") == f"move {total - 2} / {total}"
    page.click("#first")
    assert page.inner_text("#counter").startswith("move 0 /")
    assert page.locator("#log li").count() == 0
    page.click("#forward")
    assert page.inner_text("#counter").startswith("move 1 /")
    assert page.locator("#log li").count() >= 1
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#counter").startswith("move 2 /")
    page.screenshot(path=str(artifacts / f"replay-{game_id}.png"), full_page=True)
    assert page.js_errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""


def test_rules_pages_flag_reconstructed_data(page, live_server):
    for game_id, game in sorted(all_games().items()):
        page.goto(f"{live_server.url}/rules/{game_id}")
        page.wait_for_selector("article.rules h1")
        assert game.title in page.inner_text("h1")
        flagged = page.locator("#reconstructed").count() == 1
        assert flagged == (game.data_status == "reconstructed"), game_id
        if game.rules_text():
            assert page.locator(".rules-body h2, .rules-body h3").count() >= 1, f"{game_id}: rules not rendered"
        page.screenshot(path=str(ARTIFACTS / f"rules-{game_id}.png"), full_page=True)
    page.goto(f"{live_server.url}/docs")
    page.wait_for_selector("#api section")
    assert page.locator("#api section").count() >= 8
    assert "POST /api/tables" in page.inner_text("#api")
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("#create")
    page.screenshot(path=str(ARTIFACTS / "lobby.png"), full_page=True)
    assert page.js_errors == []


def test_colour_blind_patterns_and_hotseat(page, live_server, artifacts):
    game_id = "splendor" if "splendor" in GAMES else GAMES[0]
    create_table(page, live_server, game_id, seat_kinds=["human", "human"])
    page.click("#hotseat")
    page.wait_for_url(re.compile(r"#token="))
    wait_ready(page)
    page.check("#patterns-toggle")
    assert page.locator("#board svg [fill^='url(#cb-']").count() > 0 or page.locator("#board .generic").count()
    page.screenshot(path=str(artifacts / f"{game_id}-patterns.png"), full_page=True)
    rnd = random.Random(3)
    seats = set()
    handoffs = 0
    for _ in range(6):
        page.wait_for_function("""() => document.querySelector('#handoff') ||
            (document.querySelector('#actions button.action') && !document.querySelector('#board.busy'))""")
        if page.locator("#handoff").count():
            # the next seat's private view stays hidden until its player confirms
            assert page.locator("#board svg").count() == 0 and page.locator("#actions button.action").count() == 0
            handoffs += 1
            page.click("#handoff")
        wait_ready(page)
        seats.add(page.evaluate("document.body.dataset.seat"))
        click_once(page, rnd, prefer_board=0)
    assert seats == {"0", "1"}, "hotseat should hand the screen to both seats"
    assert handoffs >= 2
    page.uncheck("#patterns-toggle")


def test_splendor_take_gems_by_clicking_the_bank(page, live_server):
    create_table(page, live_server, "splendor")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    wait_ready(page)
    version = page.evaluate("document.body.dataset.version")
    tokens = page.locator("#sp-bank [data-take]")
    assert tokens.count() == 5  # gold is never taken
    tokens.nth(0).click()
    tokens = page.locator("#sp-bank [data-take]")
    tokens.nth(2).click()
    assert page.evaluate("document.body.dataset.version") == version  # still choosing
    page.locator("#sp-bank [data-take]").nth(4).click()  # the third colour completes the take
    page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
    assert "takes white, green, black" in page.locator("#log").inner_text()


def test_tokens_stay_out_of_urls_and_a_fixed_deal_is_shown(page, live_server):
    """The seat token travels only after '#' and in the WebSocket subprotocol; a chosen seed is announced."""
    import httpx

    res = httpx.post(live_server.url + "/api/tables", json={
        "game": GAMES[0], "players": 2, "seed": 4242,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]}).json()
    token = res["seats"][1]["token"]
    page.goto(live_server.url + res["seats"][1]["invite"])
    page.wait_for_function("() => document.body.dataset.seat === '1'")
    note = page.locator("#seed-note")
    assert note.is_visible() and "creator" in note.inner_text()
    assert not any(token in url for url in page.requests), "a seat token was sent in a URL"
    page.goto(live_server.url + "/")
    page.wait_for_selector(f"tr[data-table='{res['table']['id']}'] .seed-fixed")
    assert page.js_errors == []


def test_diamonds_club_park_strips_and_choice_dialogs(browser, live_server, artifacts):
    """The park is drawn (mandatory spaces marked while empty), the market's strips and rows
    are numbered as the move list and the log name them, and choices with no place on the
    board (track, trade, keep, pay) open a dialog on the board; at a phone's width too."""
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        rnd = random.Random(16)
        create_table(page, live_server, "diamonds_club")
        page.wait_for_url(re.compile(r"/table/\w+#token="))
        wait_ready(page)
        board = page.locator("#board svg")
        parks = board.locator("g.dc-park")
        assert parks.count() == 2
        for i in range(2):
            park = parks.nth(i)
            assert park.locator(".dc-mandatory").count() == 3
            assert park.locator(".dc-mandatory.uncovered").count() == 3  # nothing built yet
            assert park.locator(".dc-space.light").count() == 11  # 14 light-green, 3 of them mandatory
            assert park.locator(".dc-space.dark").count() == 5
        labels = board.locator(".dc-strip-label").all_text_contents()
        assert [t.split(" ·")[0] for t in labels] == ["strip 1", "strip 2", "strip 3", "strip 4"]
        assert board.locator(".dc-row-label").count() == 6
        # a buy names the same place in the move list, on the board and in the log
        buys = page.locator("#board svg g.market-space.act")
        if buys.count():
            space = buys.first
            where = space.get_attribute("data-where")
            action = space.get_attribute("data-action")
            listed = page.locator(f"#actions button.action[data-action='{action}']").inner_text()
            assert f"on {where}: " in listed
            version = page.evaluate("document.body.dataset.version")
            space.click()
            page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
            page.wait_for_function("w => document.querySelector('#log').textContent.includes(w)",
                                   arg=f"({where})", timeout=15000)
        # play on until a choice dialog appears on the board, then answer it there
        dialogs = 0
        for clicks in range(400):
            wait_ready(page)
            if page.evaluate("document.body.dataset.over") == "1":
                break
            dialog = page.locator("#board svg g.dc-dialog")
            if dialog.count():
                kind = dialog.get_attribute("data-choice")
                options = dialog.locator(".act[data-action]")
                listed = page.locator("#actions button.action")
                assert options.count() == listed.count()  # every choice of the moment is in the dialog
                assert kind in ("track", "trade", "keep", "pay")
                if dialogs == 0:
                    page.screenshot(path=str(artifacts / f"diamonds_club-dialog-{width}.png"), full_page=True)
                version = page.evaluate("document.body.dataset.version")
                options.nth(rnd.randrange(options.count())).click()
                page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
                dialogs += 1
                if dialogs >= 3:
                    break
                continue
            click_once(page, rnd)
        assert dialogs, "no track, trade, keep or pay choice came up"
        wait_ready(page)
        assert_readable(page)
        page.screenshot(path=str(artifacts / f"diamonds_club-park-{width}.png"), full_page=True)
        assert errors == []
        assert page.evaluate("document.body.dataset.renderError || ''") == ""
        context.close()


# -- board clarity of Sintra, Splendor, Mille Fiori and Glassworks ----------------------------------
def _listed(page):
    """The legal actions of the moment, as the list of choices beside the board offers them."""
    import json as _json

    return [_json.loads(x) for x in page.locator("#actions button.action").evaluate_all(
        "els => els.map((e) => e.dataset.action)")]


def test_glassworks_pairs_are_placed_by_clicking_the_board(page, live_server, artifacts):
    """Two satchel pieces of one shape are chosen on the board, then a lit river tile takes the pair."""
    import json as _json

    rnd = random.Random(21)
    create_table(page, live_server, "glassworks")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    placed = False
    for _ in range(300):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        pairs = [a for a in _listed(page) if a["type"] == "place_pair"]
        if not pairs:
            # play on from the list (gathering fills the satchel), never placing a pair there
            buttons = page.locator("#actions button.action")
            options = [i for i in range(buttons.count())
                       if _json.loads(buttons.nth(i).get_attribute("data-action"))["type"] != "place_pair"]
            version = page.evaluate("document.body.dataset.version")
            buttons.nth(rnd.choice(options)).click()
            page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
            continue
        pair = pairs[0]
        c1, c2 = pair["colours"]
        shape = pair["shape"]
        board = page.locator("#board svg g.works").first
        assert board.locator(f".gw-select[aria-label^='select the {c1} {shape}']").count() >= 1
        board.locator(f".gw-select[aria-label^='select the {c1} {shape}']").first.click()
        # selected: the piece's own tile places it alone, the partner is offered
        assert board.locator(".gw-select[data-selected='1']").count() == 1
        single = page.locator("#board svg .gw-target[data-action]")
        assert single.count() == 1 and _json.loads(single.get_attribute("data-action"))["type"] == "place"
        partner = board.locator(f".gw-select[aria-label^='pair the {c1} {shape} with this {c2} {shape}']")
        assert partner.count() >= 1
        partner.first.click()
        assert board.locator(".gw-select[data-selected='1']").count() == 2
        targets = page.locator("#board svg .gw-target[data-action]")
        offered = [_json.loads(targets.nth(i).get_attribute("data-action")) for i in range(targets.count())]
        want = sorted(_json.dumps(a, sort_keys=True) for a in pairs
                      if a["shape"] == shape and sorted(a["colours"]) == sorted([c1, c2]))
        assert sorted(_json.dumps(a, sort_keys=True) for a in offered) == want  # every tile the pair may go on
        page.screenshot(path=str(artifacts / "glassworks-pair-selected.png"), full_page=True)
        version = page.evaluate("document.body.dataset.version")
        targets.first.click()
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15000)
        assert "as one piece on the" in page.locator("#log").inner_text()
        placed = True
        break
    assert placed, "no pair came up to place"
    assert page.js_errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""


def test_sintra_strips_have_one_name_on_the_board_and_in_the_choices(page, live_server):
    rnd = random.Random(4)
    create_table(page, live_server, "sintra")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    checked = 0
    for _ in range(60):
        wait_ready(page)
        strips = page.locator("#board svg g.palace [data-strip].act")
        for i in range(strips.count()):
            label = strips.nth(i).locator("text").last.text_content()
            assert re.fullmatch(r"[1-8][AB]", label)
            assert f"place on strip {label}:" in strips.nth(i).get_attribute("aria-label")
            checked += 1
        if checked >= 4:
            break
        click_once(page, rnd)
    assert checked >= 4
    # every empty space shows a solid mark of its colour (pale colours stay apart without patterns)
    spaces = page.locator("#board svg .si-space[data-space]:not([data-space='joker'])")
    assert spaces.count() > 20
    assert spaces.first.locator("rect").count() == 2


def test_splendor_buttons_clear_the_costs_and_seat_counts_read_well(page, live_server, artifacts):
    rnd = random.Random(7)
    create_table(page, live_server, "splendor")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    pills_checked = 0
    for _ in range(40):
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") == "1":
            break
        # every Buy/Reserve button on a card: inside the card, wide enough for its word, clear of the cost pips
        bad = page.evaluate("""() => {
          const out = []; let n = 0;
          const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
          const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
          for (const slot of document.querySelectorAll('#sp-cards > g')) {
            const card = slot.querySelector('g.card');
            if (!card) continue;
            const face = card.querySelector('rect').getBoundingClientRect();
            const pips = [...card.querySelectorAll('circle')].map((c) => c.getBoundingClientRect());
            for (const pill of slot.querySelectorAll('g.pill')) {
              n++;
              const box = pill.querySelector('rect').getBoundingClientRect();
              const word = pill.querySelector('text').getBoundingClientRect();
              if (!inside(box, face)) out.push('outside the card');
              if (word.width > box.width) out.push('word wider than its button');
              if (pips.some((p) => meet(p, box))) out.push('covers a cost pip');
            }
          }
          return [n, out];
        }""")
        pills_checked += bad[0]
        assert bad[1] == [], bad[1]
        for text in page.locator("#sp-seats g.seat > text").all_text_contents():
            assert not re.search(r"\b1 (cards|nobles)\b|\b(0|[2-9]\d*) (card|noble)\b(?! ·)|· points", text), text
        click_once(page, rnd)
    assert pills_checked > 5
    counts = [t for t in page.locator("#sp-seats g.seat > text").all_text_contents() if " · " in t]
    assert counts and all(re.fullmatch(r"\d+ cards? · \d+ nobles?", t) for t in counts), counts


@pytest.mark.parametrize("players", [3, 4])
def test_mille_fiori_seat_panels_show_their_whole_text(page, live_server, artifacts, players):
    rnd = random.Random(players)
    create_table(page, live_server, "mille_fiori", players=players)
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    play_a_few(page, rnd, 6)
    cut = page.evaluate("""() => {
      const out = [];
      for (const seat of document.querySelectorAll('#board svg g.mf-seat')) {
        const box = seat.querySelector('rect').getBBox();
        for (const t of seat.querySelectorAll('text')) {
          const b = t.getBBox();
          if (b.x < box.x || b.x + b.width > box.x + box.width - 4 || b.y + b.height > box.y + box.height) out.push(t.textContent);
        }
      }
      return out;
    }""")
    assert cut == []
    assert page.locator("#board svg g.mf-seat").count() == players
    assert "set aside" in page.locator("#board svg g.mf-seat").first.text_content()
    page.screenshot(path=str(artifacts / f"mille_fiori-seats-{players}.png"), full_page=True)


@pytest.mark.parametrize("game_id", [g for g in ("sintra", "splendor", "mille_fiori", "glassworks") if g in GAMES])
def test_phone_boards_are_drawn_in_portrait(browser, live_server, artifacts, game_id):
    """On a 390 px wide phone the board is laid out upright (not a shrunken landscape table)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    rnd = random.Random(game_id)
    create_table(page, live_server, game_id)
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    play_a_few(page, rnd, 8)
    box = page.evaluate("""() => {
      const svg = document.querySelector('#board svg');
      const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
      const out = [...svg.querySelectorAll('text')].filter((t) => {
        const b = t.getBBox();
        return b.width && (b.x < x - 1 || b.x + b.width > x + w + 1);
      }).map((t) => t.textContent);
      return { w, h, out };
    }""")
    assert box["w"] <= 620 and box["h"] > box["w"], box
    assert box["out"] == []  # no text runs off the board's sides
    page.locator("#board").screenshot(path=str(artifacts / f"{game_id}-phone-board.png"))
    assert errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""
    context.close()
