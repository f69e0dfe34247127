# The two set-up commands of the README: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO ?= scenes/roach_tripod.yaml

.PHONY: demo test test-all install bench clean docs

# Off-screen rendering uses VTK's EGL window: Mesa's EGL/GL libraries must be on the system.
GL_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1

$(STAMP): pyproject.toml
	@ldconfig -p | grep -q 'libEGL.so.1 ' || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(GL_PACKAGES); \
	  else echo "note: off-screen rendering needs: apt-get install $(GL_PACKAGES)"; fi; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/corpus run $(DEMO)

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m "slow or not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/aba.py
	$(BIN)/python benchmarks/roach.py

docs: $(STAMP)
	$(BIN)/python -m pipeline.spec.reference --write docs/reference.md

clean:
	rm -rf $(VENV) .pytest_cache
