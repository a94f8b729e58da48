# Arena: `make run` serves the app with a worker, `make test` runs the whole suite.
# Without DATABASE_URL both use the embedded PostgreSQL under var/ (pgserver);
# without CELERY_BROKER_URL tasks run eagerly in the web process.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint format migrate seed worker bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev]'
	touch $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

run: seed
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@if [ -n "$$CELERY_BROKER_URL" ]; then \
		$(VENV)/bin/celery -A arena worker -B --schedule var/celerybeat-schedule --loglevel=INFO --concurrency=2 & \
		trap 'kill $$!' EXIT INT TERM; \
		$(PY) manage.py runserver $(HOST):$(PORT); \
	else \
		echo "No CELERY_BROKER_URL: tasks run eagerly inside the web process."; \
		$(PY) manage.py runserver $(HOST):$(PORT); \
	fi

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

bench: install
	$(PY) bench/ingest.py

clean:
	rm -rf $(VENV) var/staticfiles var/uploads
