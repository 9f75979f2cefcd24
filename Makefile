# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint types pytest pytest-slow venv clean bench

# (Re)install when pyproject.toml changes; the stamp makes repeated runs fast.
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; set PYTHON=python3"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check engine pbem web tests bench migrations config docs
	$(BIN)/lint-imports --no-cache --no-logo

types: $(STAMP)
	$(BIN)/mypy

# One worker process per core (pytest-xdist). --dist loadfile keeps each test file on one
# worker, so its module-scoped databases and servers are set up once, not once per worker.
# PYTEST_XDIST= (empty) runs in a single process, e.g. for a debugger.
PYTEST_XDIST ?= -n auto --dist loadfile

pytest: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_XDIST) $(PYTEST_ARGS)

# The tests marked slow only (tests/conftest.py leaves them out of every other run).
pytest-slow: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_XDIST) -m slow $(PYTEST_ARGS)

test: lint types pytest

run: $(STAMP)
	$(BIN)/pbem db upgrade
	$(BIN)/pbem demo
	$(BIN)/pbem serve --dev --host 127.0.0.1 --port 5000

bench: $(STAMP)
	$(BIN)/python bench/engine_bench.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
