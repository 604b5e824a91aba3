# precord — one GNU Makefile.
#
#   make            build ./precord
#   make check      install missing Debian packages, build, run every test
#                   (with the multi-node cases in a small QEMU guest)
#   make check-scale  the multi-node cases in guests of 8 to 252 vCPUs
#   make demo       install missing packages, build, record bench/matmul
#   make fuzz       build the libFuzzer targets (clang), fuzz each FUZZ_SECONDS
#   make fuzz-coverage  the source lines the fuzz corpora reach
#   make install PREFIX=/usr/local
#   make SANITIZE=address,undefined tests   (objects go to build/<sanitizer>/)
#   V=1             show the commands
.DELETE_ON_ERROR:
.SUFFIXES:

PREFIX    ?= /usr/local
CC        ?= gcc
SANITIZE  ?=
SAN_EXTRA ?=
V         ?= 0
PKGS      := hwloc numa libzstd

ifeq ($(V),1)
Q :=
else
Q := @
endif

comma := ,
ifeq ($(SANITIZE),)
B := build
else
B := build/$(subst $(comma),-,$(SANITIZE))
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer $(SAN_EXTRA)
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
# The project's own flags stay whatever CFLAGS, CPPFLAGS or LDFLAGS the
# command line gives (make CFLAGS=-O1 keeps -std=gnu11 -Wall and the
# sanitizer on every object as on the link).
CFLAGS   ?= -O2 -g
PRECORD_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
            -fno-strict-aliasing $(SAN_FLAGS)
PRECORD_CPPFLAGS := -Iinclude -Iworkqueue -I$(B) -D_GNU_SOURCE $(PKG_CFLAGS)
ALL_CFLAGS   = $(PRECORD_CPPFLAGS) $(CPPFLAGS) $(PRECORD_CFLAGS) $(CFLAGS)
ALL_LDFLAGS  = $(SAN_FLAGS) $(LDFLAGS)
# The project's libraries, then whatever LDLIBS the command line adds.
ALL_LIBS     = $(PKG_LIBS) -lrt -lpthread -lm $(LDLIBS)
DEPFLAGS  = -MMD -MP

WQ_SRCS   := $(wildcard workqueue/*.c)
LIB_SRCS  := $(wildcard src/*.c)
# The commands (builtin/builtin-*.c and their parts), as perf keeps its own
# apart from util/; builtin/main.c picks one.
CMD_SRCS  := $(filter-out builtin/main.c,$(wildcard builtin/*.c))
TEST_SRCS := $(wildcard tests/test_*.c)
BENCH_SRCS := $(wildcard bench/*.c)

WQ_OBJS   := $(WQ_SRCS:%.c=$(B)/%.o)
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(B)/%.o)
TESTS     := $(TEST_SRCS:tests/%.c=$(B)/tests/%)
BENCHES   := $(BENCH_SRCS:bench/%.c=bench/%)

# Tests that start threads: built and run under TSan as well (tests/run.sh
# reads the same list from tests/threaded.list).
THREADED   := $(shell cat tests/threaded.list 2>/dev/null)
TSAN_TESTS := $(filter $(THREADED:%=$(B)/tests/%),$(TESTS))

.PHONY: all deps check check-scale demo install clean benches tests tsan-tests fuzz fuzzers fuzz-targets fuzz-coverage
all: precord $(BENCHES) build/tests/marker build/tests/spin build/tests/bpfprog

$(B)/libwq.a: $(WQ_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libprecord.a: $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libbuiltin.a: $(CMD_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/precord: $(B)/builtin/main.o $(B)/libbuiltin.a $(B)/libprecord.a $(B)/libwq.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(ALL_LIBS)

precord: $(B)/precord
	$(Q)cp $< $@

# The version lives in one generated header, rewritten only when it changes,
# so every object that includes it is rebuilt together (no stale strings).
$(B)/version.h: FORCE
	@mkdir -p $(@D)
	@echo '#define PRECORD_VERSION "$(VERSION)"' >$@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp

.PHONY: FORCE
FORCE:

$(B)/%.o: %.c | $(B)/version.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# tests/helpers.c: the fixtures and builders every test may use.
$(B)/tests/%: $(B)/tests/%.o $(B)/tests/helpers.o $(B)/libbuiltin.a $(B)/libprecord.a $(B)/libwq.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(ALL_LIBS)

$(B)/tests/%.o: tests/%.c | $(B)/version.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Benchmarks and workloads are standalone programs in bench/. The workload
# keeps frame pointers and debug info so both call-graph modes unwind it.
bench/matmul: bench/matmul.c
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -o $@ $< -lpthread

bench/%: bench/%.c $(B)/libprecord.a $(B)/libwq.a
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -O2 $(ALL_LDFLAGS) -o $@ $^ $(ALL_LIBS)

# The flight-recorder tests' workload: numbered getppid() markers (tests/integration).
build/tests/marker: tests/marker.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O1 -g -Wall -Wextra -o $@ $<

# The BPF synthesis test's workload: two tiny BPF programs kept loaded (tests/integration).
build/tests/bpfprog: tests/bpfprog.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O1 -g -Wall -Wextra -o $@ $<

# The multi-node cases' workload: a spinning thread pinned to every CPU (tests/vm).
build/tests/spin: tests/spin.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O1 -g -Wall -Wextra -o $@ $< -lpthread

tests: $(TESTS)
tsan-tests: $(TSAN_TESTS)

# Fuzz targets (tests/fuzz/fuzz_*.c): libFuzzer, so clang, with ASan and UBSan
# (every UBSan report fatal). `make fuzzers` builds the library again into
# build/fuzz/ with the fuzzer's coverage instrumentation and links each target
# with libFuzzer; neither `make` nor `make demo` needs clang.
FUZZ_B       := build/fuzz
FUZZ_SAN     := fuzzer-no-link,address,undefined
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZERS      := $(FUZZ_NAMES:%=$(B)/tests/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60

$(FUZZERS): $(B)/tests/fuzz/%: $(B)/tests/fuzz/%.o $(B)/tests/fuzz/fuzz-common.o \
		$(B)/libprecord.a $(B)/libwq.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(ALL_LIBS)

fuzz-targets: $(FUZZERS)
fuzzers:
	$(Q)$(MAKE) --no-print-directory CC=clang B=$(FUZZ_B) SANITIZE=$(FUZZ_SAN) \
		SAN_EXTRA=-fno-sanitize-recover=all fuzz-targets

# Fuzz each target FUZZ_SECONDS, one after the other, into build/fuzz/corpus/.
fuzz: deps fuzzers
	$(Q)tests/fuzz/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_NAMES)

# The line coverage the fuzz corpora reach (tests/fuzz/fuzz.sh coverage): the
# targets again with clang's source-based coverage, in build/fuzzcov/.
fuzz-coverage: deps
	$(Q)$(MAKE) --no-print-directory CC=clang B=build/fuzzcov SANITIZE=fuzzer-no-link \
		SAN_EXTRA="-fprofile-instr-generate -fcoverage-mapping" fuzz-targets
	$(Q)tests/fuzz/fuzz.sh coverage $(FUZZ_NAMES)

benches: $(BENCHES)

# The multi-node guest's packages (QEMU, busybox, ...): without them its
# cases are skipped, not failed.
deps:
	$(Q)scripts/install-deps.sh
	$(Q)tests/vm/install-deps.sh || echo "precord: the multi-node guest's packages are missing: its tests will be skipped" >&2

# make check: unit tests, the same under ASan+UBSan and the threaded ones under
# TSan, integration tests with real events read back by stock perf, then every
# fuzz target on its seed corpus and past findings (tests/fuzz/).
check: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined tests
	$(Q)$(MAKE) --no-print-directory SANITIZE=thread tsan-tests
	$(Q)$(MAKE) --no-print-directory fuzzers
	$(Q)tests/run.sh

# make check-scale: the multi-node cases (tests/vm/cases/) in guests of 8,
# 10, 64 and 252 vCPUs, one after the other, and a table of the results.
check-scale: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/vm/check-scale.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh

install: precord
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 precord $(DESTDIR)$(PREFIX)/bin/precord
	install -m 644 Documentation/precord.1 $(DESTDIR)$(PREFIX)/share/man/man1/precord.1

clean:
	rm -rf build precord $(BENCHES) perf.data perf.data.old

-include $(shell find build -name '*.d' 2>/dev/null)

# --- workqueue/ example program (owned by the workqueue library) ------------
# Not part of `all`: tests/integration/wq_example.sh builds it with
# `make -s workqueue/examples/wq-example` and runs it.
workqueue/examples/wq-example: workqueue/examples/wq-example.c $(B)/libwq.a
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(ALL_LIBS)
