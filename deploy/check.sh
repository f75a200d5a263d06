#!/usr/bin/env bash
# Offline checks of the deployment files (no Docker engine, no root services touched):
#   - nginx -t on both sites (VPS and compose), with throwaway certificates;
#   - systemd-analyze verify on every unit, paths pointed at this checkout's .venv;
#   - compose.yaml: YAML, the services and the queues every worker must consume;
#   - whether the results PDF's library (WeasyPrint: Pango, fonts) loads (a warning only);
#   - manage.py check --deploy with production settings.
# Each part is skipped (and said so) when its tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { printf '  ok    %s\n' "$*"; }
skip() { printf '  skip  %s\n' "$*"; }

echo "nginx"
if command -v nginx >/dev/null; then
  mkdir -p "$tmp/nginx/snippets" "$tmp/nginx/tls" "$tmp/nginx/logs"
  cp deploy/nginx/common.conf "$tmp/nginx/snippets/manillen-common.conf"
  cp deploy/nginx/proxy.conf "$tmp/nginx/snippets/manillen-proxy.conf"
  cp /etc/nginx/mime.types "$tmp/nginx/" 2>/dev/null || : > "$tmp/nginx/mime.types"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
    -keyout "$tmp/nginx/tls/privkey.pem" -out "$tmp/nginx/tls/fullchain.pem" 2>/dev/null
  for site in vps compose; do
    if [ $site = vps ]; then
      sed -e "s#/etc/letsencrypt/live/manillen.example.org#$tmp/nginx/tls#" \
        deploy/nginx/manillen.conf > "$tmp/nginx/site.conf"
    else
      sed -e 's/${DOMAIN}/manillen.example.org/g' -e "s#/etc/nginx/tls#$tmp/nginx/tls#" \
        -e 's/server web:8000/server 127.0.0.1:8000/' \
        deploy/nginx/compose.conf.template > "$tmp/nginx/site.conf"
    fi
    cat > "$tmp/nginx/nginx.conf" <<CONF
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log;
events {}
http {
  include mime.types;
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  include site.conf;
}
CONF
    # -p: relative includes (snippets/...) resolve under the throwaway prefix.
    sed -i "s#include snippets/#include $tmp/nginx/snippets/#" "$tmp/nginx/site.conf" "$tmp/nginx/snippets/manillen-common.conf"
    nginx -t -q -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" 2>&1 | grep -v "^$" || true
    nginx -t -q -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" >/dev/null 2>&1
    ok "nginx -t ($site site)"
  done
else
  skip "nginx not installed"
fi

echo "systemd"
if command -v systemd-analyze >/dev/null; then
  mkdir -p "$tmp/units"
  for unit in deploy/systemd/*; do
    sed -e "s#/srv/manillen/venv#$ROOT/.venv#g" -e "s#/srv/manillen/app#$ROOT#g" \
      -e "s#^User=manillen#User=root#" -e "s#^Group=manillen#Group=root#" \
      -e "s#EnvironmentFile=/etc/manillen.env#EnvironmentFile=$ROOT/deploy/manillen.env.example#" \
      "$unit" > "$tmp/units/$(basename "$unit")"
  done
  cp "$tmp/units/manillen-web@.service" "$tmp/units/manillen-web@8001.service"
  cp "$tmp/units/manillen-web@.service" "$tmp/units/manillen-web@8002.service"
  # Only the services the units depend on but this machine lacks may be reported.
  findings=$(cd "$tmp/units" && SYSTEMD_LOG_LEVEL=err systemd-analyze verify --man=no \
     manillen-web@8001.service manillen-bots.service manillen-tasks.service \
     manillen-beat.service manillen-migrate.service manillen.target 2>&1 \
     | grep -v -E "postgresql.service|redis-server.service|network-online" || true)
  if [ -n "$findings" ]; then
    printf '%s\n' "$findings"
    echo "  FAIL  systemd-analyze verify" >&2
    exit 1
  fi
  ok "systemd-analyze verify (every unit)"
else
  skip "systemd-analyze not installed"
fi

echo "compose"
"$PY" - <<'PYCHECK'
import yaml
d = yaml.safe_load(open("deploy/compose.yaml"))
s = d["services"]
need = {"postgres", "redis", "init", "web", "bots", "tasks", "beat", "proxy"}
assert need <= set(s), need - set(s)
queues = set()
for name in ("bots", "tasks"):
    cmd = s[name]["command"]
    queues |= set(cmd[cmd.index("-Q") + 1].split(","))
assert {"bots", "rankings", "exports", "celery"} <= queues, queues
env = s["web"]["environment"]
assert env["REDIS_URL"].startswith("redis://") and env["DATABASE_URL"].startswith("postgres://")
print("  ok    compose.yaml: services", ", ".join(sorted(s)), "| queues", ", ".join(sorted(queues)))
PYCHECK

echo "pdf"
# The results PDF needs Pango and fonts (WeasyPrint loads them when imported): a warning,
# not a failure; the site works without it, only the PDF downloads do not.
if pdf=$("$PY" -c "import weasyprint; print(weasyprint.__version__)" 2>&1); then
  ok "WeasyPrint $pdf loads (results PDF)"
else
  printf '  warn  WeasyPrint does not load, no results PDF: %s\n' "$(printf '%s' "$pdf" | tail -n 1)"
  printf '        install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core\n'
fi

echo "django"
DEBUG=0 SECRET_KEY="check-only-$(head -c 48 /dev/urandom | base64 | tr -d '/+=')" \
  ALLOWED_HOSTS=manillen.example.org CSRF_TRUSTED_ORIGINS=https://manillen.example.org \
  "$PY" manage.py check --deploy --fail-level WARNING >/dev/null
ok "manage.py check --deploy (DEBUG=0, production settings): no issues"
