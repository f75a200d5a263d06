"""Issue 10, item 15: an entry whose game the bot finished at the close ("uitgespeeld
door de bot") is marked everywhere, not only in the organizer panel: the player's
table, the tournament page, the standings, the profile, the printable results and
PDF, and the game record (a tag). An open table hears the close: the end dialog's "the
record once the tournament has closed" line gives way to the record."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from engine import records
from tests.tournaments.conftest import finish, joined, play_moves
from tournaments import actions, exports, pdf
from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")

MARK = re.compile(r'<span class="t-tag t-bot-mark" title="finished by the bot">bot</span>')


@pytest.fixture
def closed_with_bot(make_tournament, make_user, organizer):
    """anna played her game to the end; ben left his half-way and the bot finished it."""
    t = make_tournament(seed="bot-finished", unfinished_rule="bot")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    play_moves(e_ben, ben, 3)
    actions.close_tournament(t.pk, organizer)
    e_anna.refresh_from_db()
    e_ben.refresh_from_db()
    assert (e_anna.finish_mode, e_ben.finish_mode) == ("played", "bot")
    return t, e_anna, e_ben


def page(user, url: str) -> str:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def row_of(html: str, name: str) -> str:
    """The standings row of `name` (the page's first table body)."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    (row,) = [r for r in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S) if f">{name}<" in r]
    return row


def test_standings_results_and_pdf_mark_the_entry(closed_with_bot):
    t, e_anna, e_ben = closed_with_bot
    for url in (f"/tournaments/{t.pk}/standings/", f"/tournaments/{t.pk}/results/"):
        html = page(e_anna.player, url)
        assert MARK.search(row_of(html, "ben")) and not MARK.search(row_of(html, "anna"))
    html = page(e_anna.player, f"/tournaments/{t.pk}/results/")
    text = " ".join(
        box.text
        for p in pdf.document(html, base_url="http://testserver/").pages
        for box in p._page_box.descendants()
        if hasattr(box, "text")
    )
    assert re.search(r"ben\s+bot", text) and not re.search(r"anna\s+bot", text)


def test_the_tournament_page_the_profile_and_the_table_say_so(closed_with_bot):
    t, e_anna, e_ben = closed_with_bot
    detail = page(e_ben.player, f"/tournaments/{t.pk}/")
    assert "data-bot-finished" in detail and MARK.search(detail)
    assert "data-bot-finished" not in page(e_anna.player, f"/tournaments/{t.pk}/")
    assert MARK.search(page(e_ben.player, "/accounts/profile/"))
    assert not MARK.search(page(e_anna.player, "/accounts/profile/"))
    table = page(e_ben.player, f"/game/{e_ben.game.public_id}/")
    note = re.search(r'<div id="closed-note"[^>]*>', table).group(0)
    assert "hidden" not in note
    assert "the bot finished your game" in table
    end_line = re.search(r"<p class=\"hint\" data-bot-finished[^>]*>", table).group(0)
    assert "hidden" not in end_line
    mine = page(e_anna.player, f"/game/{e_anna.game.public_id}/")
    assert "hidden" in re.search(r"<p class=\"hint\" data-bot-finished[^>]*>", mine).group(0)


def test_the_record_carries_a_tag_and_still_reads_back(closed_with_bot):
    t, e_anna, e_ben = closed_with_bot
    games = {e.player.username: e.game for e in Entry.objects.filter(tournament=t)}
    assert '[FinishedBy "bot:heuristic"]' in games["ben"].record
    assert "FinishedBy" not in games["anna"].record
    rec = records.read_text(games["ben"].record)
    assert rec.tags["FinishedBy"] == "bot:heuristic"
    rec.replay()  # still a valid record
    all_records = exports.records_text(t)
    assert all_records.count('[FinishedBy "bot:heuristic"]') == 1


@pytest.mark.asyncio
async def test_open_tables_hear_that_the_tournament_closed(make_tournament, make_user, organizer):
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    @database_sync_to_async
    def setup():
        t = make_tournament(seed="bot-finished-live", unfinished_rule="bot")
        anna, ben = make_user("anna"), make_user("ben")
        e_anna, e_ben = joined(t, anna, ben)
        finish(e_anna)
        play_moves(e_ben, ben, 3)
        cookies = []
        for user in (anna, ben):
            client = Client()
            client.force_login(user)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}")
        return t, [e_anna.game.public_id, e_ben.game.public_id], cookies

    t, games, cookies = await setup()
    comms = []
    for public_id, cookie in zip(games, cookies, strict=True):
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
                   (b"cookie", cookie.encode())]  # fmt: skip
        comm = WebsocketCommunicator(application, f"/ws/game/{public_id}/", headers)
        assert (await comm.connect(timeout=10))[0]
        await comm.receive_json_from(timeout=10)  # the snapshot
        await comm.send_json_to({"type": "ping"})  # its database work is done once answered
        assert (await comm.receive_json_from(timeout=10)) == {"type": "pong"}
        comms.append(comm)
    await database_sync_to_async(actions.close_tournament)(t.pk, organizer)
    anna_heard = await comms[0].receive_json_from(timeout=10)
    assert anna_heard["type"] == "closed" and anna_heard["reason"] == "tournament"
    assert anna_heard["record"] == f"/game/{games[0]}/record.txt"
    # ben's table sees the bot's moves, then that the bot finished the game.
    kinds = []
    while True:
        msg = await comms[1].receive_json_from(timeout=10)
        kinds.append(msg["type"])
        if msg["type"] == "closed":
            assert msg["reason"] == "bot" and msg["record"] == f"/game/{games[1]}/record.txt"
            break
    assert set(kinds[:-1]) == {"event"} and kinds[-2:] == ["event", "closed"]
    for comm in comms:
        await comm.disconnect()


def test_before_the_close_the_end_dialog_says_the_record_comes_later(make_tournament, make_user):
    """What the table's script (static/js/table/closed.js) changes when the close comes."""
    t = make_tournament(seed="sealed-record")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    table = page(anna, f"/game/{entry.game.public_id}/")
    sealed = re.search(r"<p class=\"hint\" data-record-sealed[^>]*>", table).group(0)
    link = re.search(r"<a [^>]*data-record-link[^>]*>", table).group(0)
    assert "hidden" not in sealed and "hidden" in link
    assert "record.txt" not in table  # no download offered while the seed is sealed
    bot = re.search(r"<p class=\"hint\" data-bot-finished[^>]*>", table).group(0)
    assert "hidden" in bot


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the table's JS")
def test_the_table_script_opens_the_record_and_names_the_bot():
    module = Path(settings.BASE_DIR) / "static" / "js" / "table" / "closed.js"
    script = (
        f"import {{ tournamentClosed }} from {json.dumps(module.as_uri())};"
        "const make = () => {"
        "  const parts = {'[data-record-sealed]': {hidden: false},"
        "    '[data-record-link]': {hidden: true}, '[data-bot-finished]': {hidden: true}};"
        "  return {parts, querySelector: (s) => parts[s] || null};"
        "};"
        "const shown = (r) => Object.fromEntries("
        "  Object.entries(r.parts).map(([k, v]) => [k.slice(6, -1), !v.hidden]));"
        "const a = make(); tournamentClosed(a, 'tournament', '/game/x/record.txt');"
        "const b = make(); tournamentClosed(b, 'bot', '/game/x/record.txt');"
        "tournamentClosed({querySelector: () => null}, 'bot');"  # a solo table: nothing
        "console.log(JSON.stringify([shown(a), shown(b), a.parts['[data-record-link]'].href]));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    ).stdout
    after_close, after_bot, href = json.loads(out)
    assert href == "/game/x/record.txt"
    assert after_close == {"record-sealed": False, "record-link": True, "bot-finished": False}
    assert after_bot == {"record-sealed": False, "record-link": True, "bot-finished": True}
    main = (module.parent / "main.js").read_text(encoding="utf-8")
    assert 'import { tournamentClosed } from "./closed.js";' in main
    assert "tournamentClosed(root, msg.reason, msg.record)" in main
