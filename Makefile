# Two commands on a fresh machine:
#   make lab    create .venv from the lock if needed, then open JupyterLab on the course
#   make test   the same install, then the whole test suite
# Add GPU=1 to either for the CUDA 12 build of the same JAX version, GPU=cuda13 for CUDA 13.
#
# What the install needs: make, and uv or any python3 >= 3.9. The venv is Python 3.11 (the
# locks are resolved for it) whatever python3 is: `uv venv --python 3.11` uses an installed
# 3.11 or downloads uv's own. uv is, in this order: UV=/path/to/uv, the venv's own (the lock's
# pin), a uv on the PATH, or the lock's uv fetched from the package index by $(PYTHON).

PYTHON ?= python3
UV     ?=
VENV   ?= .venv
GPU    ?= 0
PORT   ?= 8888
LAB_ARGS ?=
# pytest-xdist workers: one more than the cores. About 8 % of the suite's time is its checks
# waiting (lesson 15's paced and killed jobs, time limits, page loads); with two cores, a third
# worker fills most of it (idle 8.4 % -> 1.4 %; the time it saves is within the host's
# hour-to-hour spread: docs/contributors.md, "A third worker").
WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
PYTEST_ARGS ?= -n $(WORKERS) --dist loadscope

ifeq ($(GPU),0)
LOCK := requirements.lock
else ifneq ($(filter 1 cuda12,$(GPU)),)
LOCK := requirements-gpu.lock
CUDA := 12
else ifeq ($(GPU),cuda13)
LOCK := requirements-cuda13.lock
CUDA := 13
else
$(error GPU=$(GPU): use GPU=0 (CPU), GPU=1 or GPU=cuda12 (CUDA 12 wheels), or GPU=cuda13)
endif

BIN    := $(abspath $(VENV))/bin
STAMP  := $(VENV)/.installed-from-$(LOCK)
UV_PIN := $(shell grep -E '^uv==' $(LOCK))
AGAIN  := make $(MAKECMDGOALS)$(if $(CUDA), GPU=$(GPU))
# JupyterLab refuses to run as root (e.g. in a container) unless told to.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: help install lab test book browser sandbox slurm cluster cluster-stop lock release \
	clean-notebooks run-course gpu-check grade-benchmark

help:
	@echo "make lab        open JupyterLab on the course (GPU=1 for CUDA 12, GPU=cuda13; PORT=$(PORT))"
	@echo "make test       run the whole test suite"
	@echo "make book       build the course as a static site into _build/book/html (BOOK_ARGS=...)"
	@echo "make release    regenerate lessons/*/exercises.ipynb from solutions/"
	@echo "make run-course execute every lesson headless and write artifacts/course-run/report.md"
	@echo "make gpu-check  every lesson and solution without Jupyter: artifacts/gpu-check/report.md"
	@echo "make lock       re-resolve requirements*.lock and environment.yml after editing pyproject.toml"
	@echo "make browser    install Debian's chromium for the browser tests (make test does this)"
	@echo "make sandbox    install bubblewrap, which grading runs submissions in (make test does this)"
	@echo "make cluster    install SLURM and start lesson 15's one-machine cluster (make cluster-stop)"
	@echo "make slurm      install Debian's slurm-wlm for lesson 15 (make test does this)"
	@echo "make grade-benchmark  time serial vs parallel grading of 20 synthetic students"

# The one-line answers when the install cannot go on ($$py: what $(PYTHON) is, if anything).
NO_UV  = No uv here, and $(PYTHON) is $${py:-missing}$${py:+, older than 3.9}: install uv \
	(https://docs.astral.sh/uv/) or Python 3.9 or newer (PYTHON=/path/to/python3), then run $(AGAIN) again
NO_311 = No Python 3.11 here and uv could not download one: put a python3.11 on the PATH (apt, \
	deadsnakes, pyenv, conda) or let uv reach github.com (or set UV_PYTHON_INSTALL_MIRROR), then run $(AGAIN) again
NOT_311 = $(VENV) is $$($(BIN)/python --version 2>&1), not Python 3.11: remove it (rm -rf $(VENV)), \
	then run $(AGAIN) again

# --compile-bytecode: every Python that starts from this venv (kernels, a lesson's job processes,
# the sandboxed graders' kernels) then imports the packages from bytecode, not source. Python
# writes it itself at first import, unless PYTHONDONTWRITEBYTECODE is set. It is set on the
# course's development machine, where `import jax, flax.nnx, optax, orbax.checkpoint,
# matplotlib.pyplot` took 3.2 s each time, against 1.2 s after the compile (2026-12-04). The
# compile adds about 8 s to the install (BYTECODE= skips it: tests/test_install.py's
# throwaway venvs).
BYTECODE ?= --compile-bytecode
$(STAMP): $(LOCK) pyproject.toml
	@$(if $(CUDA),sh tools/check_driver.sh $(CUDA))
	@set -e; uv="$(UV)"; \
	if [ -z "$$uv" ] && [ -x $(BIN)/uv ]; then uv=$(BIN)/uv; fi; \
	if [ -z "$$uv" ]; then uv=$$(command -v uv || true); fi; \
	if [ -z "$$uv" ]; then \
		py=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || py=; \
		$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null \
			|| { echo "$(NO_UV)"; exit 1; }; \
		tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
		uv=$$($(PYTHON) tools/bootstrap_uv.py $(patsubst uv==%,%,$(UV_PIN)) "$$tmp"); \
	fi; \
	echo "uv: $$uv ($$("$$uv" --version))"; \
	test -x $(BIN)/python || "$$uv" venv --python 3.11 $(VENV) \
		|| { "$$uv" python find --system 3.11 >/dev/null 2>&1 || echo "$(NO_311)"; exit 1; }; \
	$(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
		|| { echo "$(NOT_311)"; exit 1; }; \
	"$$uv" pip sync $(BYTECODE) --python $(BIN)/python $(LOCK); \
	"$$uv" pip install --python $(BIN)/python --no-deps --editable .
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

# `python -m autograder grade` runs each submission's kernel in bubblewrap (autograder/sandbox.py).
BWRAP ?= /usr/bin/bwrap

sandbox: $(BWRAP)

$(BWRAP):
	@if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "$(BWRAP) is missing: install bubblewrap as root (apt-get install bubblewrap)," \
		"or grade with --no-sandbox (README: Grading untrusted code)"; exit 1; fi; \
	command -v apt-get >/dev/null || { echo "$(BWRAP) is missing and there is no apt-get:" \
		"install bubblewrap (dnf install bubblewrap, ...) and run make test BWRAP=/path/to/bwrap"; \
		exit 1; }; \
	set -x; $$sudo apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends bubblewrap

# Lesson 15 runs its jobs on a SLURM cluster on this machine: Debian's slurm-wlm, run as root.
SLURMCTLD ?= /usr/sbin/slurmctld

slurm: $(SLURMCTLD)

$(SLURMCTLD):
	@if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "$(SLURMCTLD) is missing: install SLURM as root (apt-get install slurm-wlm);" \
		"lesson 15 then runs its jobs as local processes"; exit 1; fi; \
	command -v apt-get >/dev/null || { echo "$(SLURMCTLD) is missing and there is no apt-get:" \
		"install SLURM (slurmctld, slurmd, srun, sbatch) and run make test SLURMCTLD=/path"; \
		exit 1; }; \
	set -x; $$sudo apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends slurm-wlm

# A cluster for the terminal, which lesson 15 uses while it is up; its daemons run as root.
cluster: $(STAMP) slurm
	@if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	$$sudo $(BIN)/python tools/cluster.py start

cluster-stop: $(STAMP)
	@if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	$$sudo $(BIN)/python tools/cluster.py stop

# The course's own JupyterLab settings (.jupyter/lab/settings/overrides.json: no "Jupyter news?"
# prompt, no update check), and the lesson list as the landing view.
LAB_SETTINGS := $(CURDIR)/.jupyter/lab/settings
LAB_LANDING  := /lab/tree/lessons

lab: $(STAMP)
	PATH="$(BIN):$$PATH" $(BIN)/jupyter lab --port=$(PORT) $(ROOT_FLAG) \
		--ServerApp.root_dir="$(CURDIR)" --LabApp.app_settings_dir="$(LAB_SETTINGS)" \
		--LabApp.default_url=$(LAB_LANDING) $(LAB_ARGS)

test: $(STAMP) browser sandbox slurm
	PATH="$(BIN):$$PATH" $(BIN)/python -m pytest $(PYTEST_ARGS)

# The book: lessons executed on the CPU (reusing the suite's executions in _build/executed/ when
# they are of the current files), exercises, quizzes and guides, built by Sphinx + myst-nb.
BOOK_ARGS ?=
book: $(STAMP)
	PATH="$(BIN):$$PATH" $(BIN)/python -m course.book $(BOOK_ARGS)

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
	$(BIN)/uv pip compile pyproject.toml --quiet --no-header --python-version 3.11 \
		--python-platform x86_64-manylinux_2_28 --extra cuda13 -o requirements-cuda13.lock
	$(BIN)/python tools/render_environment.py

# Serial vs parallel `python -m autograder grade` on 20 synthetic students of lesson 00,
# and what the sandbox costs a kernel.
grade-benchmark: $(STAMP) sandbox
	PATH="$(BIN):$$PATH" $(BIN)/python tools/grade_benchmark.py
