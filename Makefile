# agoraish — build, test, demo, bench, install.
#
#   make demo     set up, build, run the demo
#   make test     set up, check the layering, build once, run every test (Swift, ABI, C, C++, Python)
#   make check-layering  imports follow Package.swift and docs/architecture.md; sans-IO layers stay so
#   make generate the mechanical mirrors of include/agoraish.h (tools/abigen); `make test` fails when stale
#   make bench    set up, build, run the benchmarks -> bench/results/latest.json
#   make install  PREFIX=/usr/local: library, headers, server and token tools, pkg-config file, Python package

SHELL      := /bin/bash
SWIFT      ?= swift
PYTHON     ?= python3
CC         ?= gcc
CXX        ?= g++
PREFIX     ?= /usr/local
VERSION    := 0.1.0
ABI_MAJOR  := 0

BUILD      := build
DIST       := dist
DIST_LIB   := $(DIST)/lib
SO_REAL    := libagoraish.so.$(VERSION)
SO_NAME    := libagoraish.so.$(ABI_MAJOR)
DIST_SCRATCH := .build/dist
DIST_FLAGS := -c release --scratch-path $(DIST_SCRATCH) -Xswiftc -static-stdlib

HEADERS    := include/agoraish.h bindings/cpp/agoraish.hpp bindings/cpp/agoraish_callbacks.hpp

CFLAGS_STRICT  := -Wall -Wextra -Werror -pedantic
HOST_CFLAGS    := -std=c99 -O1 -g $(CFLAGS_STRICT) -Iinclude
HOST_CXXFLAGS  := -std=c++17 -O1 -g $(CFLAGS_STRICT) -Iinclude -Ibindings/cpp
HOST_LDFLAGS   := -L$(DIST_LIB) -lagoraish -Wl,-rpath,$(CURDIR)/$(DIST_LIB) -lpthread

export AGORAISH_LIBRARY := $(CURDIR)/$(DIST_LIB)/$(SO_NAME)
export AGORAISH_ABI_LAYOUT := $(CURDIR)/$(BUILD)/abi-layout.json

C_TESTS    := $(patsubst Tests/c/%.c,$(BUILD)/tests/%,$(filter-out Tests/c/layout_probe.c,$(wildcard Tests/c/*.c)))
CXX_TESTS  := $(patsubst Tests/cpp/%.cpp,$(BUILD)/tests/%,$(wildcard Tests/cpp/*.cpp))
C_EXAMPLES := $(patsubst examples/c/%.c,$(BUILD)/examples/%,$(wildcard examples/c/*.c))
CXX_EXAMPLES := $(patsubst examples/cpp/%.cpp,$(BUILD)/examples/%_cpp,$(wildcard examples/cpp/*.cpp))

FUZZ_TARGETS := rtp rtcp stun websocket http signaling client token007 token006 video data json sdp dtls sctp
FUZZ_SCRATCH := .build/fuzz
# -sanitize-coverage is spelled out: measured with this toolchain, a clean build with
# --sanitize=fuzzer --sanitize=address alone gave libFuzzer 127 counters; with it, 78 833.
FUZZ_FLAGS   := --product agoraish-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING \
                -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --scratch-path $(FUZZ_SCRATCH)
FUZZ_SECONDS ?= 60
FUZZ_BRIEF   ?= 3

.PHONY: all setup build swift-build dist hosts test check-layering generate check-generated test-old-minor test-swift test-abi test-c test-python \
        fuzz-build test-fuzz fuzz sanitize demo bench install uninstall clean

all: build

## setup: install the Debian and Python packages that are missing (idempotent).
setup:
	@./scripts/setup.sh

## build: the debug package with its tests, and the distributable library.
build: swift-build dist hosts

swift-build:
	$(SWIFT) build --build-tests

## dist: a relocatable tree: lib/libagoraish.so (the Swift runtime linked in, SONAME
## libagoraish.so.0) and lib/agoraish.pc, include/ (the C header and the C++ wrapper),
## bin/agoraish-server and bin/agoraish-token.
dist:
	$(SWIFT) build $(DIST_FLAGS) --product agoraish
	$(SWIFT) build $(DIST_FLAGS) --product agoraish-server
	$(SWIFT) build $(DIST_FLAGS) --product agoraish-token
	@mkdir -p $(DIST_LIB) $(DIST)/include $(DIST)/bin
	@bin=$$($(SWIFT) build $(DIST_FLAGS) --show-bin-path); \
	  install -m 0755 $$bin/libagoraish.so $(DIST_LIB)/$(SO_REAL); \
	  ln -sf $(SO_REAL) $(DIST_LIB)/$(SO_NAME); ln -sf $(SO_NAME) $(DIST_LIB)/libagoraish.so; \
	  install -m 0755 $$bin/agoraish-server $$bin/agoraish-token $(DIST)/bin/
	@install -m 0644 $(HEADERS) $(DIST)/include/
	@sed -e 's|@PREFIX@|$${pcfiledir}/..|' -e 's|@VERSION@|$(VERSION)|' agoraish.pc.in > $(DIST_LIB)/agoraish.pc

hosts: $(BUILD)/layout_probe $(C_TESTS) $(CXX_TESTS) $(C_EXAMPLES) $(CXX_EXAMPLES)

$(BUILD)/layout_probe: Tests/c/layout_probe.c include/agoraish.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@

$(BUILD)/tests/%: Tests/c/%.c Tests/c/test_support.h Tests/c/abi_functions.h include/agoraish.h $(DIST_LIB)/$(SO_NAME)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@ $(HOST_LDFLAGS) -lm

$(BUILD)/tests/%: Tests/cpp/%.cpp Tests/cpp/test_support.hpp examples/cpp/example_support.hpp include/agoraish.h bindings/cpp/agoraish.hpp bindings/cpp/agoraish_callbacks.hpp $(DIST_LIB)/$(SO_NAME)
	@mkdir -p $(@D)
	$(CXX) $(HOST_CXXFLAGS) -Iexamples/cpp $< -o $@ $(HOST_LDFLAGS) $(TEST_LDLIBS)

# Libraries a test needs besides libagoraish: video_tracks_cpp encodes VP8 for its encoded track.
$(BUILD)/tests/video_tracks_cpp: TEST_LDLIBS := -lvpx

$(BUILD)/examples/%: examples/c/%.c examples/c/example_support.h include/agoraish.h $(DIST_LIB)/$(SO_NAME)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@ $(HOST_LDFLAGS) -lm

$(BUILD)/examples/%_cpp: examples/cpp/%.cpp examples/cpp/example_support.hpp include/agoraish.h bindings/cpp/agoraish.hpp bindings/cpp/agoraish_callbacks.hpp $(DIST_LIB)/$(SO_NAME)
	@mkdir -p $(@D)
	$(CXX) $(HOST_CXXFLAGS) $< -o $@ $(HOST_LDFLAGS)

## test: everything, built once. The last lines are pytest's summary.
test: setup
	@$(MAKE) --no-print-directory check-layering check-generated
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory test-abi test-old-minor test-swift test-c test-fuzz test-python

## generate: every mechanical mirror of the header (Python ctypes layer, ABICheck.swift,
## StructSizes.swift, the layout probe and its Swift test, the C handle sweep, the C++
## event bindings, include/abi/struct-sizes.json), read with libclang.
generate:
	$(PYTHON) tools/abigen/abigen.py

## check-generated: fails when a generated file differs from what the header gives.
check-generated:
	$(PYTHON) tools/abigen/abigen.py --check

## test-old-minor: a host built against the previous minor's header runs on today's library.
test-old-minor: $(BUILD)/tests-old/old_minor_host
	$<

$(BUILD)/tests-old/old_minor_host: Tests/c/old_minor/old_minor_host.c Tests/c/old_minor/abi-0.13/agoraish.h $(DIST_LIB)/$(SO_NAME)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O1 -g $(CFLAGS_STRICT) -ITests/c/old_minor/abi-0.13 $< -o $@ $(HOST_LDFLAGS)

## check-layering: the arrows of docs/architecture.md and Package.swift, imports per target,
## and no sockets, threads, clocks or files in AgoraishWire, AgoraishMedia, AgoraishSession.
## Reads the manifest with `swift package dump-package`; builds nothing.
check-layering:
	@SWIFT=$(SWIFT) $(PYTHON) tools/check_layering.py

$(BUILD)/abi-layout.json: $(BUILD)/layout_probe
	$< > $@

test-abi: $(BUILD)/abi-layout.json
	@echo "== header compiles as C99 and C++17 with $(CFLAGS_STRICT)"
	@printf '#include "agoraish.h"\nint main(void){return 0;}\n' | $(CC) -std=c99 $(CFLAGS_STRICT) -Iinclude -x c - -o /dev/null
	@printf '#include "agoraish.h"\nint main(){return 0;}\n' | $(CXX) -std=c++17 $(CFLAGS_STRICT) -Iinclude -x c++ - -o /dev/null
	@printf '#include "agoraish.hpp"\nint main(){return 0;}\n' | $(CXX) -std=c++17 $(CFLAGS_STRICT) -Iinclude -Ibindings/cpp -x c++ - -o /dev/null

test-swift: $(BUILD)/abi-layout.json
	$(SWIFT) test --skip-build

test-c: hosts
	@set -e; for t in $(C_TESTS) $(CXX_TESTS); do echo "== $$t"; $$t; done
	@set -e; for t in $(C_TESTS); do echo "== valgrind $$t"; \
	  valgrind -q --fair-sched=yes --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite --suppressions=Tests/valgrind.supp \
	    --show-possibly-lost=no $$t > /dev/null; done

## fuzz-build: the libFuzzer + AddressSanitizer build of agoraish-fuzz (its own scratch path).
fuzz-build:
	$(SWIFT) build $(FUZZ_FLAGS)

# Each fuzz target for a few seconds, starting from the checked-in seeds (Tests/Fuzz/corpus).
test-fuzz: fuzz-build
	@set -e; bin=$$($(SWIFT) build $(FUZZ_FLAGS) --show-bin-path)/agoraish-fuzz; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz-corpus/$$t; \
	  echo "== fuzz $$t ($(FUZZ_BRIEF) s)"; \
	  SWIFT_BACKTRACE=enable=no AGORAISH_FUZZ_TARGET=$$t $$bin -max_total_time=$(FUZZ_BRIEF) \
	    -artifact_prefix=$(BUILD)/fuzz-$$t- $(BUILD)/fuzz-corpus/$$t Tests/Fuzz/corpus/$$t 2> $(BUILD)/fuzz-$$t.log \
	    || { tail -40 $(BUILD)/fuzz-$$t.log; exit 1; }; \
	  grep -E '^Done|stat::number_of_executed_units' $(BUILD)/fuzz-$$t.log | tail -1; \
	done

## fuzz: every target for FUZZ_SECONDS (default 60) each; crashes land in build/fuzz-<target>-*.
fuzz: fuzz-build
	@$(MAKE) --no-print-directory test-fuzz FUZZ_BRIEF=$(FUZZ_SECONDS)

## sanitize: the Swift tests (with the loopback integration tests) under ASan, then TSan.
sanitize: setup
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

test-python:
	cd Tests/python && $(PYTHON) -m pytest -q -p no:cacheprovider

## demo: an embedded channel server and two users who join, see each other, talk and leave.
demo: setup
	@$(MAKE) --no-print-directory dist $(BUILD)/examples/demo_call
	@$(BUILD)/examples/demo_call

## bench: every benchmark; prints a table and writes bench/results/latest.json.
## scripts/setup-bench.sh adds what only the benchmarks need (GStreamer, espeak-ng, pesq).
bench: setup
	@PYTHON=$(PYTHON) ./scripts/setup-bench.sh
	@$(MAKE) --no-print-directory dist
	$(PYTHON) bench/run.py

install: dist
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(DIST_LIB)/$(SO_REAL) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SO_REAL) $(DESTDIR)$(PREFIX)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(PREFIX)/lib/libagoraish.so
	install -m 0644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 0755 $(DIST)/bin/agoraish-server $(DIST)/bin/agoraish-token $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$${pcfiledir}/../..|' -e 's|@VERSION@|$(VERSION)|' agoraish.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/agoraish.pc
	-ldconfig 2>/dev/null
	$(PYTHON) -m pip install -q ./bindings/python

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libagoraish.so* $(DESTDIR)$(PREFIX)/include/agoraish.h \
	  $(DESTDIR)$(PREFIX)/include/agoraish.hpp $(DESTDIR)$(PREFIX)/include/agoraish_callbacks.hpp \
	  $(DESTDIR)$(PREFIX)/bin/agoraish-server $(DESTDIR)$(PREFIX)/bin/agoraish-token \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/agoraish.pc
	-$(PYTHON) -m pip uninstall -y -q agoraish

clean:
	rm -rf .build $(BUILD) $(DIST)
