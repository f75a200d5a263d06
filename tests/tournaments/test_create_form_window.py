"""The new-tournament form: a play window that ends before it starts is refused at the
end field (aria-invalid and the error tied to it), not as an error of the whole form."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_an_end_before_the_start_is_an_error_of_the_end_field(client, organizer, club):
    client.force_login(organizer)
    start = timezone.localtime(timezone.now() + dt.timedelta(days=2))
    data = {
        "name": "Kampioenschap", "rules": "flemish", "bot_level": "heuristic",
        "results_visibility": "after_finish", "unfinished_rule": "bot", "club": club.pk,
        "capacity": 12, "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "ends_at": (start - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
    }  # fmt: skip
    response = client.post("/tournaments/new/", data)
    assert response.status_code == 200
    assert not Tournament.objects.filter(name="Kampioenschap").exists()
    form = response.context["form"]
    assert "eindigt voor ze begint" in str(form.errors.get("ends_at", "")), form.errors
    assert not form.non_field_errors()
    page = response.content.decode()
    end_input = re.search(r'<input[^>]*name="ends_at"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in end_input
    described = re.search(r'aria-describedby="([^"]+)"', end_input).group(1)
    assert "id_ends_at_error" in described
