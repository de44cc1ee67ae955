# mindsport: `make run` and `make test` work on a fresh machine (they create .venv when missing).
#
# `make run` installs only the product (`pip install -e .`); the test tools, the benchmark peers,
# Ray, Parquet and PostgreSQL support are extras that `make test` and `make bench` add.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install --disable-pip-version-check --progress-bar on

.PHONY: run test bench lint format clean

$(VENV)/.base: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(VENV)/.dev: $(VENV)/.base
	$(PIP) -e '.[dev]'
	touch $@

$(VENV)/.bench: $(VENV)/.dev
	$(PIP) -e '.[dev,bench]'
	touch $@

## run: the main job on the embedded default (SQLite file under ./out, generated data); the
## Dou Dizhu engine is loaded (compiled once, on a fresh machine) first, with a message
run: $(VENV)/.base
	$(VENV)/bin/mindsport ddz compile
	$(VENV)/bin/mindsport demo

## test: the whole test suite (what CI runs), on TEST_WORKERS processes (pytest-xdist; 1: serial)
TEST_WORKERS ?= 2
test: $(VENV)/.dev
	$(PY) -m pytest -n $(TEST_WORKERS)

## bench: side-by-side benchmarks against the peer libraries (not part of the tests; ~10 min)
bench: $(VENV)/.bench
	$(PY) -m pip install --quiet --no-deps douzero  # DouZero's move generator (no torch needed)
	$(PY) benchmarks/bench_rate.py
	$(PY) benchmarks/bench_replay.py --scale 0.3
	$(PY) benchmarks/bench_ddz.py --hands 3000 --games 300 --fast-games 20000 --rlcard-games 100
	$(PY) benchmarks/bench_dih.py
	$(PY) benchmarks/tournament_scale.py --hands 10000 --ray

## lint: ruff and mypy
lint: $(VENV)/.dev
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy

format: $(VENV)/.dev
	$(VENV)/bin/ruff format src tests benchmarks
	$(VENV)/bin/ruff check --fix src tests benchmarks

clean:
	rm -rf $(VENV) build dist src/*.egg-info out
