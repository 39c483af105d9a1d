# One command per job. Every target sets up .venv itself, so a fresh clone needs only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench bench-peers bench-retrieval clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/forge chat

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	bash scripts/pytest.sh $(BIN)/python

test: lint typecheck unit

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do \
		case $$b in *bench_peers.py|*bench_retrieval.py) continue;; esac; \
		echo "== $$b"; $(BIN)/python $$b || exit 1; done

# Forge against llm and shell-gpt (installed under ~/.cache/forge-bench on first use).
bench-peers: $(STAMP)
	$(BIN)/python benchmarks/bench_peers.py

# Retrieval quality and speed on real Debian documentation (keyword-only vs hybrid, same run).
bench-retrieval: $(STAMP)
	$(BIN)/python benchmarks/bench_retrieval.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
