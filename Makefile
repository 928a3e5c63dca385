# Top-level entry points. CMake + Ninja do the building; this file only
# chains "install what is missing" -> configure -> build -> run.
BUILD    ?= build
ASAN     ?= build-asan
CMAKE    ?= cmake
PREFIX   ?= /usr/local
BUILDTYPE ?= RelWithDebInfo

.PHONY: all deps build demo check check-unit check-asan install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	$(CMAKE) -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE) \
	    -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DVN_PYTHON=$(CURDIR)/$(BUILD)/venv/bin/python

build: $(BUILD)/build.ninja
	$(CMAKE) --build $(BUILD)

# The main job: two ways to sum two arrays, timed in-process, their
# distributions drawn, and which is faster by how much.
demo: deps build
	@echo '$$ build/examples/sum_arrays --hist'
	@$(BUILD)/examples/sum_arrays --hist

# The sanitized build uses clang, the normal one gcc: every check compiles
# the code (with -Werror) with both.
$(ASAN)/build.ninja:
	$(CMAKE) -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVN_SANITIZE=ON \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	    -DVN_PYTHON=$(CURDIR)/$(BUILD)/venv/bin/python

# Every test: the unit and end-to-end tests of the normal build (gcc), then
# the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang).
check: deps build $(ASAN)/build.ninja
	cd $(BUILD) && ctest --output-on-failure
	$(CMAKE) --build $(ASAN)
	cd $(ASAN) && ctest --output-on-failure

# PREFIX is honoured here too, not only when build/ is first configured
# (the tool finds its helper relative to itself, so any prefix works).
install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN)
