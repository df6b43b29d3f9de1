# Corkboard: the two commands are `make run` and `make test`. Everything else here serves them.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

HOST ?= 127.0.0.1
PORT ?= 8080
DATA ?= data
PYTHON ?= python3
SWIFT_FORMAT_PATHS := Package.swift Sources Tests Fuzz
# Under CI (CI set, and not "false") a warning in Corkboard's own code fails the build; dependencies
# are built with their warnings suppressed, as SwiftPM always does.
WARNINGS_AS_ERRORS := $(if $(filter-out false,$(CI)),-Xswiftc -warnings-as-errors)
FUZZ_SECONDS ?= 60
# libFuzzer with AddressSanitizer: a debug build (a release build or separate --sanitize flags leave
# the code uninstrumented), its own build folder, the fuzz targets only with CORKBOARD_FUZZ set.
FUZZ_BUILD := CORKBOARD_FUZZ=1 swift build -c debug --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
	--build-path .build-fuzz

.PHONY: run test deps test-deps build build-debug format-check format js-test swift-test python-test conformance \
	fuzz fuzz-build bench help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

run: deps build ## install missing packages, build in release, serve http://$(HOST):$(PORT)
	.build/release/corkboard serve --host $(HOST) --port $(PORT) --web web --data $(DATA) --demo

test: test-deps format-check js-test build-debug swift-test python-test conformance fuzz ## install test needs, run every suite
	@echo "make test: every suite passed"

deps: ## install the Debian packages needed to build and run
	scripts/install-deps.sh

test-deps: ## install everything the test suites need
	scripts/install-deps.sh --test

build: ## release build of every executable
	scripts/build.sh release

build-debug:
	scripts/build.sh debug $(WARNINGS_AS_ERRORS)

format-check: ## fail if any Swift file differs from .swift-format
	swift format lint --strict --recursive $(SWIFT_FORMAT_PATHS)

format: ## rewrite Swift files to .swift-format
	swift format --in-place --recursive $(SWIFT_FORMAT_PATHS)

js-test: ## the browser client's modules under node's test runner (protocol, model golden vectors)
	node --test Tests/js/*.test.mjs

# Swift Testing runs every test of the process at once on a cooperative pool as wide as the cores
# (two here): with all 669 queued, a test whose rooms pass an event back and forth six times waits
# behind hundreds of others at each hop and can miss a 20 s wait. At most SWIFT_TEST_WIDTH tests run
# at once; the whole run takes no longer, and each test's waits measure its own work.
SWIFT_TEST_WIDTH ?= 16
swift-test: ## Swift suites; a private PostgreSQL server (scripts/test-postgres.sh) serves the PostgreSQL store tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(SWIFT_TEST_WIDTH) \
	scripts/test-postgres.sh run swift test $(WARNINGS_AS_ERRORS)

python-test:
	CORKBOARD_LOAD_BIN=$(CURDIR)/.build/debug/corkboard-load \
	CORKBOARD_BOT_BIN=$(CURDIR)/.build/debug/corkboard-bot \
	CORKBOARD_BIN=$(CURDIR)/.build/debug/corkboard \
	$(PYTHON) -m pytest -q Tests/python

conformance: build-debug ## Autobahn|Testsuite cases 1-10 against `serve --echo-path /echo`, over ws and wss
	scripts/install-wstest.sh
	$(PYTHON) scripts/conformance.py --corkboard $(CURDIR)/.build/debug/corkboard

fuzz-build: ## build the libFuzzer targets (AddressSanitizer) into .build-fuzz
	$(FUZZ_BUILD) --product fuzz-wire
	$(FUZZ_BUILD) --product fuzz-http
	$(FUZZ_BUILD) --product fuzz-model

fuzz: fuzz-build ## run each fuzz target for FUZZ_SECONDS (60) from Fuzz/corpus, after Fuzz/regressions
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench: deps build ## release benchmarks, as recorded in docs/BENCHMARKS.md
	taskset -c 1 .build/release/corkboard-bench model --items 10000 --sections 100 --ops 2000000 --sequenced-ops 500000 --runs 5 --seed 42
	.build/release/corkboard-load transport --clients 100 --broadcasts 20000 --size 100 --runs 5
	.build/release/corkboard-load transport --clients 1000 --broadcasts 2000 --size 100 --runs 3
	$(PYTHON) scripts/bench_scenarios.py --runs 3
