# make install    creates .venv and installs memrnn with its dev tools (`. .venv/bin/activate`)
# make test       creates .venv, installs memrnn with its dev tools, runs ruff, mypy and pytest
# make reproduce  creates .venv, installs, runs every experiment's quick profile, writes reports/
# make docs       creates .venv, installs the docs extra, builds docs/_build/html (warnings are errors)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
# The CPU build of PyTorch; a plain `torch` requirement can pull a multi-GB CUDA build.
TORCH_CPU ?= torch==2.13.0
# Test processes (pytest-xdist): two halve the suite's time on a 2-core machine.
PYTEST_WORKERS ?= 2

.PHONY: install test lint typecheck bench reproduce docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install -q "$(TORCH_CPU)"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples docs/conf.py
	$(BIN)/ruff format --check src tests benchmarks examples docs/conf.py

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS)

# Every experiment the registry finds (`memrnn list --names`), unless given:
# make reproduce REPRODUCED="trask2016 ba2016"
REPRODUCED ?= $$($(BIN)/memrnn list --names)

reproduce: $(STAMP)
	$(BIN)/memrnn reproduce $(REPRODUCED) --profile quick --out reports/

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $(DOCS_STAMP)

# The gallery and the tutorial run while the pages build; one thread each keeps the
# figures' numbers the same from machine to machine.
docs: $(DOCS_STAMP)
	OMP_NUM_THREADS=1 MPLBACKEND=agg $(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

bench: $(STAMP)
	$(BIN)/python benchmarks/structures.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info \
		docs/_build docs/gallery docs/tutorial docs/sg_execution_times.rst
