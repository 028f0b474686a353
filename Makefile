# accel-agent: the commands README.md names. Every target installs what it
# needs into .venv itself; nothing but python3, pip, make and (for the
# multi-Python job) pyenv's interpreters is assumed.
#
#   make run     venv + install '.[pycryptodome]', accel-agent verify, the demo
#                (examples/seal_files.py natively and under the agent, timed, cross-checked)
#   make test    install '.[test]', run the test suite (pytest -n auto)
#   make lint    ruff check, and the docs' generated tables (settings, targets) are current
#   make bench   start-up cost, then native vs agent vs cryptography per primitive
#                (BENCH_ARGS for the first, CRYPTO_BENCH_ARGS="--quick" for the second;
#                the second is `accel-agent bench`: CSV and chart in bench/results/)
#   make bench-startup-all   idle start-up cost on each Python 3.9-3.13
#   make bench-crypto        per-call: native vs agent vs cryptography
#   make multipython         start-up and differential tests on each Python 3.9-3.13
#   make suites  pycryptodome's own suite under the agent, per pinned release
#   make engines the agent under gunicorn, uWSGI, uvicorn, Celery, Dask and PySpark
#                (tests/engines/, in .venv-engines; ENGINES_ARGS passes pytest arguments)
#   make app-suites  applications' own suites (requirements/apps/), native vs agent
#   make bench-apps  accel-agent bench --family apps: application workloads, native vs agent
#   make ci      what CI runs (.ci/run)

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
PYTEST_ARGS ?=
BENCH_ARGS ?=
CRYPTO_BENCH_ARGS ?=
# accel-agent bench's CSV and chart (the chart when matplotlib is installed:
# pip install '.[chart]' into the venv).
CRYPTO_FILES := --csv bench/results/crypto.csv --chart bench/results/crypto.png

# The project is installed non-editable (the tests exercise the real wheel
# layout with its .pth), so any change under agent/ must reinstall it.
AGENT_SOURCES := pyproject.toml hatch_build.py README.md \
	$(shell find agent -type f ! -name '*.pyc' ! -path '*/__pycache__/*' 2>/dev/null)

.DEFAULT_GOAL := help
.PHONY: help run test lint bench bench-startup-all bench-crypto multipython suites engines \
	app-suites bench-apps wheel ci clean FORCE

help:
	@sed -n 's/^#   make /  make /p' Makefile

# A venv whose interpreter no longer runs (its base Python was removed or
# upgraded) is rebuilt; a healthy one is kept. -S: no site, so no .pth, so an
# `accel-agent enable --mode assert` on an unhealthy machine cannot pass for
# a broken interpreter.
ifneq ($(shell $(PY) -S -c 'print("ok")' 2>/dev/null),ok)
$(VENV)/pyvenv.cfg: FORCE
endif
$(VENV)/pyvenv.cfg:
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-run: $(VENV)/pyvenv.cfg $(AGENT_SOURCES)
	$(PIP) install -q '.[pycryptodome]'
	@touch $@

# The benchmark draws its chart with matplotlib (the chart extra).
$(VENV)/.installed-bench: $(VENV)/pyvenv.cfg $(AGENT_SOURCES)
	$(PIP) install -q '.[pycryptodome,chart]'
	@touch $@

$(VENV)/.installed-test: $(VENV)/pyvenv.cfg $(AGENT_SOURCES)
	$(PIP) install -q '.[test]'
	@touch $@

# The other libraries the agent patches, pinned in requirements/: the
# bench has rows for them (agent/accel_agent/bench/families/python_ecdsa.py, ...).
LIBRARY_PINS := $(wildcard requirements/python-*.txt requirements/pyaes*.txt requirements/pyDes.txt requirements/starkbank-ecdsa.txt)

$(VENV)/.installed-libraries: $(VENV)/pyvenv.cfg $(LIBRARY_PINS)
	$(if $(LIBRARY_PINS),$(PIP) install -q $(foreach pin,$(LIBRARY_PINS),-r $(pin)))
	@touch $@

$(VENV)/.installed-dev: $(VENV)/pyvenv.cfg requirements/dev.txt
	$(PIP) install -q -r requirements/dev.txt
	@touch $@

# The demo runs examples/seal_files.py itself, natively and under the agent
# (ACCEL_AGENT=off / on / quiet per child), and fails on any mismatch.
DEMO_ARGS ?=
run: $(VENV)/.installed-run
	$(VENV)/bin/accel-agent verify
	$(PY) examples/demo.py $(DEMO_ARGS)

# pytest exits 5 when it collected nothing: an empty suite must never pass.
test: $(VENV)/.installed-test
	@rc=0; $(PY) -m pytest -q -n auto --dist loadgroup -m "not suite and not engines" $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then \
		echo "make test: pytest collected no tests; an empty suite is a failure" >&2; \
	fi; \
	exit $$rc

# The docs' tables are checked against the source tree's code (-S: no
# .pth, so the installed copy cannot answer instead).
lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	PYTHONPATH=agent $(PYTHON) -S .ci/docs_tables.py --check

# The start-up cost, then every family side by side: native pycryptodome,
# pycryptodome under the agent, direct pyca/cryptography, with ratios and the
# project's performance targets of docs/performance.md (reported, not enforced: the machine is shared and noisy).
bench: $(VENV)/.installed-run $(VENV)/.installed-bench $(VENV)/.installed-libraries
	$(PY) -m bench.startup $(BENCH_ARGS)
	$(VENV)/bin/accel-agent bench --check-goals $(CRYPTO_FILES) $(CRYPTO_BENCH_ARGS)

# One line per Python 3.9-3.13 found under pyenv: the idle start-up cost.
bench-startup-all: $(VENV)/.installed-run
	$(PY) -m bench.startup --all-pythons $(BENCH_ARGS)

bench-crypto: $(VENV)/.installed-bench $(VENV)/.installed-libraries
	$(VENV)/bin/accel-agent bench $(CRYPTO_FILES) $(BENCH_ARGS)

wheel: $(VENV)/pyvenv.cfg
	rm -rf dist
	$(PIP) wheel -q --no-deps -w dist .

multipython:
	bash .ci/multipython.sh

# pycryptodome's own suite, natively and under the agent, for each pinned
# pycryptodome (4.x, 3.x, pycryptodomex): minutes each, so not part of `make test`.
suites:
	bash .ci/suites.sh

# The engines (requirements/engines.txt) in their own venv, with the agent from
# its wheel: uWSGI compiles with gcc, PySpark needs Java 17. The tests run the
# real servers on 127.0.0.1 (tests/engines/); ACCEL_ENGINE_TESTS=require turns
# a missing engine into a failure instead of a skip; ACCEL_TEST_WHEEL hands the
# wheel just built to the `accel-agent enable` tests' throwaway venv.
ENGINES_VENV := .venv-engines
ENGINES_PY := $(ENGINES_VENV)/bin/python
ENGINES_ARGS ?=
ifneq ($(shell $(ENGINES_PY) -S -c 'print("ok")' 2>/dev/null),ok)
$(ENGINES_VENV)/pyvenv.cfg: FORCE
endif
$(ENGINES_VENV)/pyvenv.cfg:
	rm -rf $(ENGINES_VENV)
	$(PYTHON) -m venv $(ENGINES_VENV)

$(ENGINES_VENV)/.installed-engines: $(ENGINES_VENV)/pyvenv.cfg $(AGENT_SOURCES) requirements/engines.txt
	rm -rf build/engines-dist
	$(ENGINES_PY) -m pip --disable-pip-version-check wheel -q --no-deps -w build/engines-dist .
	$(ENGINES_PY) -m pip --disable-pip-version-check uninstall -q -y accel-agent 2>/dev/null || true
	$(ENGINES_PY) -m pip --disable-pip-version-check install -q \
		"$$(ls build/engines-dist/accel_agent-*.whl)[pycryptodome]" -r requirements/engines.txt
	@touch $@

engines: $(ENGINES_VENV)/.installed-engines
	@rc=0; env -u ACCEL_AGENT -u ACCEL_AGENT_EXCLUDE ACCEL_ENGINE_TESTS=require \
		ACCEL_TEST_WHEEL="$$(ls $(CURDIR)/build/engines-dist/accel_agent-*.whl)" \
		$(ENGINES_PY) -m pytest -q -p no:cacheprovider -n 2 -m engines tests/engines \
		$(ENGINES_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then \
		echo "make engines: pytest collected no tests; an empty run is a failure" >&2; \
	fi; \
	exit $$rc

# Real applications on PyPI (eth-keyfile, oauth2client, ...): each one's own
# tests from its sdist, natively and under the agent, in a venv of its own
# (requirements/apps/NAME.txt; .ci/app-suites/NAME.sh says what runs and why).
app-suites:
	rm -rf build/app-suites/dist
	bash .ci/library_suites.sh .ci/app-suites

# accel-agent bench's apps family: the applications above, in one venv of
# their own (their pins ask for pycryptodome 3.x, the main venv has 4.x).
APPS_VENV := build/bench-apps/venv
APP_PINS := $(wildcard requirements/apps/*.txt)

$(APPS_VENV)/.installed: $(APP_PINS) $(AGENT_SOURCES)
	rm -rf $(APPS_VENV)
	$(PYTHON) -m venv $(APPS_VENV)
	$(APPS_VENV)/bin/python -m pip --disable-pip-version-check install -q '.[chart]' \
		$(foreach pin,$(APP_PINS),-r $(pin))
	@touch $@

bench-apps: $(APPS_VENV)/.installed
	$(APPS_VENV)/bin/accel-agent bench --family apps --csv bench/results/apps.csv \
		--chart bench/results/apps.png $(BENCH_ARGS)

ci:
	bash .ci/run

clean:
	rm -rf $(VENV) .venv-*/ dist build .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

FORCE:
