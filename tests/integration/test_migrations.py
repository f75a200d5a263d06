"""The models and the migrations agree: a model change without its migration fails here
(a deployment's `migrate` would otherwise leave the database behind the code)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        raise AssertionError(f"missing migrations:\n{out.getvalue()}") from exc
    assert "No changes detected" in out.getvalue()
