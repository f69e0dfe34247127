# The two set-up commands of the README: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO ?= scenes/roach_tripod.yaml
# Exact versions of every runtime and dev dependency, resolved by uv from pyproject.toml's
# ranges (`make lock` refreshes it). demo, test and CI install from it; `make test-latest`
# ignores it, to try today's newest releases before re-locking.
LOCK := requirements.lock
UV_VERSION := 0.13.9
LATEST := .venv-latest

.PHONY: demo test test-all test-latest install lock bench clean docs tools

# Off-screen rendering uses VTK's EGL window: Mesa's EGL/GL libraries must be on the system.
GL_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1

$(STAMP): pyproject.toml $(LOCK)
	@ldconfig -p | grep -q 'libEGL.so.1 ' || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(GL_PACKAGES); \
	  else echo "note: off-screen rendering needs: apt-get install $(GL_PACKAGES)"; fi; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps -e .
	@# numba compiles the kernels at their first call and caches them (pipeline/_numba_cache.py):
	@# a short run of the demo scene does it here, once, so `make demo` starts simulating at once.
	@# It runs past 0.2 s, where the demo's gait starts: the gait's sensors call kernels of their own
	@echo "compiling kernels (once, a minute or two)"
	$(BIN)/corpus run $(DEMO) --duration 0.3 --no-frames --quiet --out $(VENV)/warm-up
	touch $(STAMP)

install: $(STAMP)

# The glTF validator the tests run when node is present (tools/package.json, pinned by its lock).
tools:
	cd tools && npm ci

# Re-resolve the lock to the newest versions pyproject.toml allows, for every platform.
lock:
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv==$(UV_VERSION)
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
	  --fork-strategy fewest --upgrade --quiet -o $(LOCK)

# The test suite on the newest releases, without the lock, in a venv of its own.
test-latest:
	rm -rf $(LATEST)
	$(PY) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install -q --upgrade -e ".[dev]"
	$(LATEST)/bin/python -m pip freeze --exclude-editable > $(LATEST)/resolved.txt
	$(LATEST)/bin/python -m pytest -q

demo: $(STAMP)
	$(BIN)/corpus run $(DEMO)

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The gallery's slow test opens a page in headless Chromium, from the distribution's packages.
BROWSER_PACKAGES := chromium

test-all: $(STAMP)
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES); \
	  else echo "note: the gallery's browser test needs: apt-get install $(BROWSER_PACKAGES)"; fi; }
	$(BIN)/python -m pytest -q -m "slow or not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/aba.py
	$(BIN)/python benchmarks/roach.py

docs: $(STAMP)
	$(BIN)/python -m pipeline.spec.reference --write docs/reference.md

clean:
	rm -rf $(VENV) $(LATEST) .pytest_cache
