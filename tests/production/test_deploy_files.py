"""deploy/ checked as far as this machine allows (no Docker engine here): nginx -t on both
proxy configs, systemd-analyze verify on every unit, compose.yaml's services and queues,
and `manage.py check --deploy` under production settings — all by deploy/check.sh."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_deployment_check_passes_and_none_is_skipped():
    env = {**os.environ, "PY": sys.executable}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    result = subprocess.run(
        ["bash", "deploy/check.sh"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    oks = [line for line in result.stdout.splitlines() if line.strip().startswith("ok")]
    assert len(oks) == 6, out  # nginx ×2, systemd, compose, pdf, django
    assert "skip" not in result.stdout, out


def test_a_broken_unit_fails_the_check(tmp_path):
    """The check is not a formality: a unit without ExecStart= makes it fail."""
    if not shutil.which("systemd-analyze"):
        raise AssertionError("systemd-analyze is part of Debian's base system; it should be here")
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "deploy", copy / "deploy")
    (copy / "manage.py").symlink_to(ROOT / "manage.py")
    names = ("config", "game", "tournaments", "ops", "accounts", "engine", "templates", "static")
    for name in (*names, "locale", ".venv"):
        if (ROOT / name).exists():
            (copy / name).symlink_to(ROOT / name)
    unit = copy / "deploy" / "systemd" / "manillen-bots.service"
    unit.write_text(unit.read_text().replace("ExecStart=", "# ExecStart="))
    env = {**os.environ, "PY": sys.executable}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    result = subprocess.run(
        ["bash", "deploy/check.sh"], cwd=copy, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode != 0
    out = result.stdout + result.stderr
    assert "manillen-bots.service" in out and "bad unit file" in out, out
    assert "ok    systemd-analyze" not in out


def test_check_deploy_passes_with_the_redirect_left_to_the_proxy():
    """SECURE_SSL_REDIRECT=0, as the deploy README says when the proxy redirects to https
    (deploy/nginx does): `check --deploy --fail-level WARNING` still passes, since it runs
    before every start (manillen-migrate, compose's init) and would stop the deployment."""
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "check-only-" + "k" * 50,
        "ALLOWED_HOSTS": "manillen.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://manillen.example.org",
        "SECURE_SSL_REDIRECT": "0",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
