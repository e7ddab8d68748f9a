# Two commands on a fresh machine:
#   make lab    create .venv from the lock if needed, then open JupyterLab on the course
#   make test   the same install, then the whole test suite
# Add GPU=1 to either for the CUDA 12 build of the same JAX version.

PYTHON ?= python3
VENV   ?= .venv
GPU    ?= 0
PORT   ?= 8888
LAB_ARGS ?=
PYTEST_ARGS ?= -n auto --dist loadscope

ifeq ($(GPU),1)
LOCK := requirements-gpu.lock
else
LOCK := requirements.lock
endif

BIN    := $(abspath $(VENV))/bin
STAMP  := $(VENV)/.installed-from-$(LOCK)
UV_PIN := $(shell grep -E '^uv==' $(LOCK))
# JupyterLab refuses to run as root (e.g. in a container) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: help install lab test browser lock release clean-notebooks run-course gpu-check grade-benchmark

help:
	@echo "make lab        open JupyterLab on the course (GPU=1 for CUDA 12; PORT=$(PORT))"
	@echo "make test       run the whole test suite"
	@echo "make release    regenerate lessons/*/exercises.ipynb from solutions/"
	@echo "make run-course execute every lesson headless and write artifacts/course-run/report.md"
	@echo "make gpu-check  every lesson and solution without Jupyter: artifacts/gpu-check/report.md"
	@echo "make lock       re-resolve requirements*.lock and environment.yml after editing pyproject.toml"
	@echo "make browser    install Debian's chromium for the browser tests (make test does this)"
	@echo "make grade-benchmark  time serial vs parallel grading of 20 synthetic students"

$(STAMP): $(LOCK) pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
		|| { echo "The locks are resolved for Python 3.11; run: make $(MAKECMDGOALS) PYTHON=python3.11"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "$(UV_PIN)"
	$(BIN)/uv pip sync --python $(BIN)/python $(LOCK)
	$(BIN)/uv pip install --python $(BIN)/python --no-deps --editable .
	rm -f $(VENV)/.installed-from-*
	touch $@

install: $(STAMP)

# The browser tests (tests/browser/) drive Debian's chromium through playwright.
CHROMIUM ?= /usr/bin/chromium

browser: $(CHROMIUM)

$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "$(CHROMIUM) is missing: install Debian's chromium as root (apt-get install chromium)"; \
	exit 1; fi; \
	command -v apt-get >/dev/null || { echo "$(CHROMIUM) is missing and there is no apt-get:" \
		"install chromium and run make test CHROMIUM=/path/to/chromium"; exit 1; }; \
	set -x; $$sudo apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium

lab: $(STAMP)
	PATH="$(BIN):$$PATH" $(BIN)/jupyter lab --port=$(PORT) $(ROOT_FLAG) \
		--ServerApp.root_dir="$(CURDIR)" $(LAB_ARGS)

test: $(STAMP) browser
	PATH="$(BIN):$$PATH" $(BIN)/python -m pytest $(PYTEST_ARGS)

release: $(STAMP)
	$(BIN)/python -m autograder release

clean-notebooks: $(STAMP)
	$(BIN)/python -m autograder clean

run-course: $(STAMP)
	PATH="$(BIN):$$PATH" $(BIN)/python -m autograder run

# On a bare GPU box without the course's environment: python3 tools/gpu_check.py --out DIR
GPU_CHECK_ARGS ?=
gpu-check: $(STAMP)
	$(BIN)/python tools/gpu_check.py --out artifacts/gpu-check $(GPU_CHECK_ARGS)

lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --quiet --no-header --python-version 3.11 \
		--python-platform x86_64-manylinux_2_28 -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --quiet --no-header --python-version 3.11 \
		--python-platform x86_64-manylinux_2_28 --extra gpu -o requirements-gpu.lock
	$(BIN)/python tools/render_environment.py

# Serial vs parallel `python -m autograder grade` on 20 synthetic students of lesson 00.
grade-benchmark: $(STAMP)
	PATH="$(BIN):$$PATH" $(BIN)/python tools/grade_benchmark.py
