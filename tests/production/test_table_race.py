"""Races at a table (issue 11), on PostgreSQL: two people clicking the last free seat
at once — exactly one gets it and the table starts once; one person clicking two free
seats at once gets one of them."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from game import actions
from game.models import Game, Seat
from tests.helpers import PRODUCTION_STACK

pytestmark = [
    pytest.mark.usefixtures("live_game_db"),
    pytest.mark.skipif(not PRODUCTION_STACK, reason="row locks race only on PostgreSQL"),
]


def _at_once(calls) -> list:
    """Run the calls in threads released together; each result or the exception."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what happened
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


def test_two_people_clicking_the_last_free_seat_exactly_one_gets_it(django_user_model):
    make = django_user_model.objects.create_user
    for round_ in range(6):
        host, a, b, c, d = (make(f"race{round_}-{n}", password="pw-race-123") for n in "habcd")
        game = actions.create_table(host)
        actions.sit(game.public_id, a, 1)
        actions.sit(game.public_id, b, 2)
        results = _at_once(
            [
                lambda u=c, gid=game.public_id: actions.sit(gid, u, 3),
                lambda u=d, gid=game.public_id: actions.sit(gid, u, 3),
            ]
        )
        won = [r for r in results if isinstance(r, Game)]
        lost = [r for r in results if isinstance(r, actions.SeatRefused)]
        assert len(won) == 1 and len(lost) == 1, results
        seat = Seat.objects.get(game=game, index=3)
        assert seat.user_id in (c.pk, d.pk)
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE  # started once, by the winner's sit
        assert Seat.objects.filter(game=game, user__isnull=False).count() == 4


def test_one_person_clicking_two_free_seats_at_once_gets_one(django_user_model):
    host = django_user_model.objects.create_user("race-host", password="pw-race-123")
    guest = django_user_model.objects.create_user("race-guest", password="pw-race-123")
    game = actions.create_table(host)
    results = _at_once(
        [
            lambda: actions.sit(game.public_id, guest, 1),
            lambda: actions.sit(game.public_id, guest, 3),
        ]
    )
    assert sum(isinstance(r, Game) for r in results) == 1, results
    assert sum(isinstance(r, actions.SeatRefused) for r in results) == 1, results
    assert Seat.objects.filter(game=game, user=guest).count() == 1
