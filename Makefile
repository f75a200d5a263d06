# `make run`  : local server on http://127.0.0.1:8000 (SQLite, in-memory layer, eager bots)
# `make test` : the whole pytest suite (embedded mode, or PostgreSQL + Redis + a real
#               Celery worker when DATABASE_URL and REDIS_URL are set, see .ci/run)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed.stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000
CHROMIUM ?= /usr/bin/chromium

.PHONY: run test install migrate demo-user chromium nginx poppler static lint format bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the dependency list changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo-user: migrate
	$(BIN)/python manage.py ensure_demo_user

run: demo-user
	@echo "Manillen on http://$(HOST):$(PORT)/  (log in as demo / demo)"
	$(BIN)/uvicorn config.asgi:application --host $(HOST) --port $(PORT) \
	  --ws-ping-interval 10 --ws-ping-timeout 10

# Debian's Chromium for the browser test; Playwright never downloads a browser here.
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian's chromium for the browser tests"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else \
	    echo "error: $(CHROMIUM) is missing and we are not root." >&2; \
	    echo "       Install it with: sudo apt-get install -y chromium" >&2; \
	    exit 1; \
	  fi; \
	fi

# Debian's nginx, only for `nginx -t` on the deployment's configs (deploy/check.sh,
# run by the tests). policy-rc.d keeps the package from starting a server on port 80.
nginx:
	@if ! command -v nginx >/dev/null && ! [ -x /usr/sbin/nginx ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian's nginx-light for the deployment checks"; \
	    created=; if [ ! -e /usr/sbin/policy-rc.d ]; then \
	      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; created=1; fi; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    (apt-get install -y -q nginx-light || (apt-get update -q && apt-get install -y -q nginx-light)); \
	    rc=$$?; [ -n "$$created" ] && rm -f /usr/sbin/policy-rc.d; exit $$rc; \
	  else \
	    echo "error: nginx is missing and we are not root." >&2; \
	    echo "       Install it with: sudo apt-get install -y nginx-light" >&2; \
	    exit 1; \
	  fi; \
	fi

# Debian's poppler-utils: pdftoppm turns the results PDF into images in the tests
# (tests/tournaments/test_pdf_print.py checks they are not blank, white, with red suits).
poppler:
	@if ! command -v pdftoppm >/dev/null; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian's poppler-utils for the PDF tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q poppler-utils || (apt-get update -q && apt-get install -y -q poppler-utils); \
	  else \
	    echo "error: pdftoppm is missing and we are not root." >&2; \
	    echo "       Install it with: sudo apt-get install -y poppler-utils" >&2; \
	    exit 1; \
	  fi; \
	fi

# Hashed static files for processes that tests start with DEBUG=0 (production
# storage: whitenoise's manifest). Copies only what changed.
static: install
	DEBUG=0 SECRET_KEY=collectstatic-only ALLOWED_HOSTS=localhost \
	  $(BIN)/python manage.py collectstatic --noinput --verbosity 0

test: install chromium nginx poppler static
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .

bench: install
	$(BIN)/python bench/latency.py
