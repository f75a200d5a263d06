"""The deployment files say what works on a fresh Debian box (no Docker or systemd run
here, so these read the files): the env example has no comment after a value, the web
units do not restart with the migrations, the image's code belongs to the app's user and
has the PDF's libraries, and the VPS steps name the packages they need."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PDF_PACKAGES = ("libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz-subset0", "fonts-dejavu-core")


def test_the_env_example_has_no_comment_after_a_value():
    """systemd's EnvironmentFile keeps `VALUE  # comment` as the whole value."""
    for number, line in enumerate((DEPLOY / "manillen.env.example").read_text().splitlines(), 1):
        bare = line.lstrip("# ")
        if re.match(r"[A-Z][A-Z0-9_]*=", bare):
            assert " #" not in bare and "\t#" not in bare, f"line {number}: {line}"


def test_the_web_units_do_not_restart_with_the_migrations():
    unit = (DEPLOY / "systemd" / "manillen-web@.service").read_text()
    directives = [line for line in unit.splitlines() if not line.startswith("#")]
    for name in ("Requires", "BindsTo", "PartOf", "Requisite"):
        assert not any(
            line.startswith(f"{name}=") and "manillen-migrate" in line for line in directives
        ), name
    assert "ExecStartPre=/srv/manillen/venv/bin/python manage.py migrate --check" in unit
    assert "After=" in unit and "manillen-migrate.service" in unit


def test_the_image_code_belongs_to_the_app_user_and_has_the_pdf_libraries():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    runtime = dockerfile.split("FROM python", 2)[2]
    assert "COPY --from=build --chown=manillen:manillen /app /app" in runtime
    assert all(package in runtime for package in PDF_PACKAGES)
    # The build's throwaway key passes the settings' production check.
    key = re.search(r"SECRET_KEY=(\S+)", dockerfile).group(1)
    assert len(key) >= 16 and not key.startswith("change-me")


def test_the_vps_steps_name_their_packages_and_a_working_database_login():
    readme = (DEPLOY / "README.md").read_text()
    vps = readme.split("## Single VPS", 1)[1].split("## Docker host", 1)[0]
    for package in ("postgresql", "redis-server", "nginx", "python3.11-venv", "certbot"):
        assert package in vps, package
    assert all(package in vps for package in PDF_PACKAGES)
    assert "createuser --pwprompt manillen" in vps
    assert "certbot certonly --webroot -w /var/www/certbot" in vps
    assert "createsuperuser" in vps


def test_healthz_is_not_retried_nor_redirected_in_either_site():
    common = (DEPLOY / "nginx" / "common.conf").read_text()
    healthz = common.split("location = /healthz {", 1)[1].split("}", 1)[0]
    assert "proxy_next_upstream off;" in healthz
    assert "proxy_next_upstream" not in (DEPLOY / "nginx" / "proxy.conf").read_text()
    for site in ("manillen.conf", "compose.conf.template"):
        text = (DEPLOY / "nginx" / site).read_text()
        port80 = text.split("listen 80;", 1)[1].split("server {", 1)[0]
        assert "location = /healthz" in port80 and "proxy_next_upstream off;" in port80, site
        assert "map $request_method $manillen_login_key" in text, site
        assert "expires " not in text, site  # one Cache-Control on /static/


def _uvicorn_flags(text: str) -> set[str]:
    words = re.findall(r'"?(--[a-z-]+)"?(?:[ ,]+"?([^\s",\\\]]+)"?)?', text)
    return {
        f"{flag} {value}" if value and not value.startswith("--") else flag for flag, value in words
    }


def test_every_web_server_finds_a_dead_websocket_within_20_seconds():
    """A phone whose network went away keeps a socket "open": uvicorn's pings (every
    10 s, 10 s to answer) close it, the seat is away and the takeover counts from there.
    The image, the systemd unit and `make run` start uvicorn alike."""
    image = (DEPLOY / "Dockerfile").read_text().split('CMD ["uvicorn"', 1)[1].split("]", 1)[0]
    unit = (DEPLOY / "systemd" / "manillen-web@.service").read_text()
    unit = unit.split("ExecStart=", 1)[1].split("\nRestart", 1)[0]
    run = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    for where, text in (("image", image), ("unit", unit), ("make run", run)):
        flags = _uvicorn_flags(text)
        assert {"--ws-ping-interval 10", "--ws-ping-timeout 10"} <= flags, (where, flags)
