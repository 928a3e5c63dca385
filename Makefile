# Top-level entry points. CMake + Ninja do the building; this file only
# chains "install what is missing" -> configure -> build -> run.
BUILD    ?= build
ASAN     ?= build-asan
CMAKE    ?= cmake
PREFIX   ?= /usr/local
BUILDTYPE ?= RelWithDebInfo
# Tests at once: the ones that measure run alone (tests/CMakeLists.txt).
JOBS     ?= $(shell nproc)

.PHONY: all deps test-deps build demo check install clean

all: build

# What building needs; test-deps adds what the tests need (Python tools,
# clang, QEMU and a kernel, cross compilers), which only `make check` waits for.
deps:
	@scripts/install-deps

test-deps:
	@scripts/install-deps --test

$(BUILD)/build.ninja:
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE) -DVN_WERROR=ON \
	    -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DVN_PYTHON=$(CURDIR)/$(BUILD)/venv/bin/python

# A build folder configured before warnings were errors by option is set
# to them here, as a new one is.
werror = grep -q '^VN_WERROR:BOOL=ON' $(1)/CMakeCache.txt || $(CMAKE) -S . -B $(1) -DVN_WERROR=ON >/dev/null

build: $(BUILD)/build.ninja
	@$(call werror,$(BUILD))
	$(CMAKE) --build $(BUILD)

# The main job: two ways to sum two arrays, timed in-process, their
# distributions drawn, and which is faster by how much. Only the tool and the
# example are built, so a first run does not wait for the tests' build.
demo: deps $(BUILD)/build.ninja
	$(CMAKE) --build $(BUILD) --target example_sum_arrays
	@echo '$$ build/examples/sum_arrays --hist --baseline two_loops'
	@$(BUILD)/examples/sum_arrays --hist --baseline two_loops

# The sanitized build uses clang, the normal one gcc: every check compiles
# the code (with -Werror) with both.
$(ASAN)/build.ninja:
	$(CMAKE) -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVN_SANITIZE=ON -DVN_WERROR=ON \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	    -DVN_PYTHON=$(CURDIR)/$(BUILD)/venv/bin/python

# Every test: the unit and end-to-end tests of the normal build (gcc), then
# the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang). The build folders are configured again after test-deps, so what
# it installed (libbpf and clang for vernier trace) is found even by a
# folder that `make demo` configured before; and a test skipped for
# something install-deps installs fails (VN_STRICT_DEPS, tests/cli/conftest.py).
reconfigure = $(CMAKE) -S . -B $(1) >/dev/null

check: test-deps $(BUILD)/build.ninja $(ASAN)/build.ninja
	@$(call reconfigure,$(BUILD))
	@$(call werror,$(BUILD))
	$(CMAKE) --build $(BUILD)
	cd $(BUILD) && VN_STRICT_DEPS=1 ctest --output-on-failure -j$(JOBS)
	@$(call reconfigure,$(ASAN))
	@$(call werror,$(ASAN))
	$(CMAKE) --build $(ASAN)
	cd $(ASAN) && VN_STRICT_DEPS=1 ctest --output-on-failure -j$(JOBS)

# PREFIX is honoured here too, not only when build/ is first configured
# (the tool finds its helper relative to itself, so any prefix works).
install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN)
