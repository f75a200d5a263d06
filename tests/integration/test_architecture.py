"""The engine stays a pure library: nothing under engine/ imports the web stack."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

RUFF = [sys.executable, "-m", "ruff", "check", "--select", "TID251", "--no-cache"]


def test_engine_imports_no_django_channels_or_celery():
    result = subprocess.run([*RUFF, "engine"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_ban_really_fires_inside_engine_and_only_there():
    probe = "from django.conf import settings\nimport celery\nfrom channels import layers\n"
    inside = subprocess.run(
        [*RUFF, "--stdin-filename", "engine/probe.py", "-"],
        cwd=ROOT, input=probe, capture_output=True, text=True,
    )  # fmt: skip
    assert inside.returncode == 1
    assert inside.stdout.count("TID251") == 3
    outside = subprocess.run(
        [*RUFF, "--stdin-filename", "game/probe.py", "-"],
        cwd=ROOT, input=probe, capture_output=True, text=True,
    )  # fmt: skip
    assert outside.returncode == 0, outside.stdout
