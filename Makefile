# ugc-analyze — build, test, demo, bench, install.
#
#   make            build ./ugc-analyze
#   make test       build and run every test (SAN=1: with ASan + UBSan and assertions)
#   make demo       analyse the bundled example
#   make bench      time the pipeline on generated heaps (SCALE=1: 1M to 10M)
#   make fuzz       run every libFuzzer harness FUZZ_SECONDS (default 60) each
#   make capture    build the capture library BUILD/libugccapture.a and BUILD/ugc-refdump
#   make install    PREFIX=/usr/local (DESTDIR honoured)
#
# The build is quiet: only warnings and errors print (V=1 shows the commands).

CC      ?= cc
Q       := $(if $(filter 1,$(V)),,@)
PREFIX  ?= /usr/local
VERSION := 0.1.0
PKGS    := sqlite3 libzstd
TESTOUT ?= tests/out

CFLAGS  ?= -O2
CFLAGS  += -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -DUGC_VERSION=\"$(VERSION)\" -pthread
CPPFLAGS += -I.
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsqlite3 -lzstd) -pthread -lm

ifeq ($(SAN),1)
  BUILD  := build/san
  CFLAGS += -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  BIN    := ugc-analyze-san
else
  BUILD  := build/rel
  BIN    := ugc-analyze
  # the release build: no assertions (base/assert.h); SAN=1 and fuzz keep them
  CPPFLAGS += -DNDEBUG
endif

# capture/: the standalone snapshot writer library (C99, zstd only); the tool
# links it too (one escaping rule).  capture/refdump.c is its reference dumper.
CAP_SRC := $(wildcard capture/ugc_*.c)
CAP_OBJ := $(CAP_SRC:%.c=$(BUILD)/%.o)
CAP_LIB := $(BUILD)/libugccapture.a
REFDUMP := $(BUILD)/ugc-refdump
LIB_SRC := $(wildcard base/*.c) $(wildcard snapshot/*.c) $(wildcard analysis/*.c) $(wildcard sql/*.c) \
	   $(wildcard tools/gen/*.c) $(CAP_SRC)
CLI_SRC := $(wildcard cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
# tests/attack_db.c is a program of its own (tests/attacks.sh builds its
# hostile databases with it), and so is tests/json_check.c (tests/json.sh
# checks every command's JSON with it): neither is part of the unit tests
ATTACK_DB := $(BUILD)/attack-db
JSON_CHECK := $(BUILD)/json-check
TEST_SRC := $(filter-out tests/attack_db.c tests/json_check.c,$(wildcard tests/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test demo bench install deps clean check-deps fuzz fuzz-build capture

all: check-deps $(BIN) capture

$(BIN): $(LIB_OBJ) $(CLI_OBJ)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the unit tests count and can fail every allocation (tests/oom_wrap.c)
OOM_WRAP := $(foreach f,malloc calloc realloc strdup strndup,-Wl,--wrap=$(f))

# the unit tests link the commands too (not main.c), for the option tables
UNIT_CLI_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))

$(BUILD)/unit-tests: $(LIB_OBJ) $(UNIT_CLI_OBJ) $(TEST_OBJ)
	$(Q)$(CC) $(LDFLAGS) $(OOM_WRAP) -o $@ $^ $(LDLIBS)

$(ATTACK_DB): $(BUILD)/tests/attack_db.o
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(JSON_CHECK): $(BUILD)/tests/json_check.o
	$(Q)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# the capture library is C99 (an engine's C++ module compiles it), strictly
$(BUILD)/capture/%.o: capture/%.c | check-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -std=c99 -pedantic-errors -U_GNU_SOURCE -MMD -MP -c -o $@ $<

capture: $(CAP_LIB) $(REFDUMP)

$(CAP_LIB): $(CAP_OBJ)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(REFDUMP): $(BUILD)/capture/refdump.o $(CAP_LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/capture/refdump.d $(BUILD)/tests/attack_db.d \
	$(BUILD)/tests/json_check.d

# Dependencies: installed when missing and we are root, else named.
check-deps:
	@sh tools/deps.sh

test: check-deps $(BIN) $(BUILD)/unit-tests $(REFDUMP) $(ATTACK_DB) $(JSON_CHECK)
	@sh tools/check-layers.sh
	@sh tests/run.sh ./$(BIN) $(BUILD)/unit-tests $(TESTOUT) $(REFDUMP)

demo: all
	@sh tools/demo.sh ./$(BIN)

# make bench SCALE=1: every job at the large sizes (tools/bench-scale.sh;
# BENCH_SIZES and BENCH_V8_SIZES choose them)
bench: all
	@if [ -n "$(SCALE)" ]; then sh tools/bench-scale.sh ./$(BIN); else sh tools/bench.sh ./$(BIN); fi

# Fuzzing (clang's libFuzzer): every fuzz/fuzz_NAME.c is a harness, run for
# FUZZ_SECONDS each, one at a time, from its kept corpus fuzz/corpus/NAME/
# (new inputs go to build/fuzz/work/NAME, crashes to build/fuzz/crash-NAME-*).
# The library, the commands (cli/main.c's main renamed ugc_cli_main) and any
# other fuzz/*.c (support code, not named fuzz_*) are linked into each.  FUZZ=NAME runs one harness.  A crash,
# a leak, a timeout or an RSS over the limit fails the target.  The V8 harness
# keeps inputs to 16 KiB: JSON grows by whole arrays, and a larger input only
# repeats the same paths more slowly.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_FLAGS   := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -UNDEBUG
FUZZ_HARNESS := $(wildcard fuzz/fuzz_*.c)
FUZZ         ?= $(FUZZ_HARNESS:fuzz/fuzz_%.c=%)
FUZZ_SUPPORT := $(filter-out $(FUZZ_HARNESS),$(wildcard fuzz/*.c))
FUZZ_OBJ     := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(LIB_SRC) $(CLI_SRC) $(FUZZ_SUPPORT))

$(FUZZ_BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -O2,$(CFLAGS)) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link \
		$(if $(filter cli/main.c,$<),-Dmain=ugc_cli_main) -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -O2,$(CFLAGS)) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

-include $(FUZZ_OBJ:.o=.d)
.SECONDARY: $(FUZZ_OBJ)

fuzz-build: $(FUZZ:%=$(FUZZ_BUILD)/fuzz_%)

fuzz: fuzz-build
	@failed=""; for n in $(FUZZ); do \
		mkdir -p $(FUZZ_BUILD)/work/$$n fuzz/corpus/$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		case $$n in v8) extra=-max_len=16384 ;; *) extra= ;; esac; \
		$(FUZZ_BUILD)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 $$extra \
			-malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crash-$$n- \
			$(FUZZ_BUILD)/work/$$n fuzz/corpus/$$n > $(FUZZ_BUILD)/$$n.log 2>&1 \
			|| { failed="$$failed $$n"; tail -n 40 $(FUZZ_BUILD)/$$n.log; }; \
		grep -E '^(stat::number_of_executed_units|Done)' $(FUZZ_BUILD)/$$n.log | tr '\n' ' '; echo; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed (inputs in $(FUZZ_BUILD)/crash-*)"; exit 1; fi; \
	echo "fuzz: no crash"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ugc-analyze
	install -m 644 man/ugc-analyze.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/ugc-snapshot.5 man/ugc-rules.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 man/ugc-gc.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 644 capture/ugc_capture.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(CAP_LIB) $(DESTDIR)$(PREFIX)/lib/

clean:
	rm -rf build ugc-analyze ugc-analyze-san tests/out tests/out-*
