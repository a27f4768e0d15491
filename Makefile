# exportkb: two commands for a newcomer.
#   make serve    set up, build kb.db and the docs, serve the search UI and docs on localhost
#   make test     set up and run the test suite
# Everything is installed into .venv from pinned versions; torch is held at
# 2.13.0+cpu by constraints.txt so no dependency can swap it for a CUDA build.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# The install stamp changes whenever the pinned requirements change.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha1sum | cut -c1-12)

.PHONY: setup system-deps search serve build docs docs-po check test bench devset-eval clean

# Debian packages: Chromium and its driver for the browser tests (CJK fonts so Korean
# and Chinese pages render in screenshots), gettext for the
# translation catalogues. Installed only when missing (needs root, as on CI).
SYSTEM_PACKAGES := chromium chromium-driver gettext fonts-noto-cjk

setup: system-deps $(STAMP)

system-deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[collect,ui,site,dev,cluster]'
	$(BIN)/python -m collectors.corpus.torchvision_compat --install-pth
	@rm -f $(VENV)/.installed-*
	@touch $@

# Search an error: make search Q='AssertionError: Guard failed: x.size()[0] == 2'
#                  make search FILE=ci.log
search: setup
	@if [ -n "$(FILE)" ]; then $(BIN)/exportkb search --file "$(FILE)"; \
	elif [ -n "$$Q" ]; then $(BIN)/exportkb search "$$Q"; \
	else echo "usage: make search Q='<error text>'  or  make search FILE=<log>"; exit 2; fi

# The main job: build what is stale, then serve http://127.0.0.1:8001/ (PORT=... to change).
PORT ?= 8001
serve: setup
	$(BIN)/exportkb serve --port $(PORT)

build: setup
	$(BIN)/exportkb build

# The documentation site in English, Korean and Chinese (_build/html/{en,ko,zh_CN}).
docs: setup
	$(BIN)/exportkb docs

# After changing English prose: merge new messages into the ko/zh_CN catalogues.
docs-po: setup
	$(BIN)/exportkb docs --update-po

# Run every entry's failing and fixed scripts on the pinned torch.
check: setup
	$(BIN)/exportkb check

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/bench_matcher.py
	$(BIN)/python bench/bench_ui.py
	$(BIN)/python bench/bench_site.py
	$(BIN)/python bench/bench_collect.py
	$(BIN)/python bench/bench_cluster.py

devset-eval: setup
	-$(BIN)/python -m kb.calibrate --check
	$(BIN)/python -m kb.evaluate --write

clean:
	rm -rf build $(VENV)
