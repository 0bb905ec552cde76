# ugc-analyze — build, test, demo, bench, install.
#
#   make            build ./ugc-analyze
#   make test       build and run every test (SAN=1: with ASan + UBSan)
#   make demo       analyse the bundled example
#   make bench      time the pipeline on generated heaps
#   make install    PREFIX=/usr/local (DESTDIR honoured)

CC      ?= cc
PREFIX  ?= /usr/local
VERSION := 0.1.0
PKGS    := sqlite3 libzstd
TESTOUT ?= tests/out

CFLAGS  ?= -O2
CFLAGS  += -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -DUGC_VERSION=\"$(VERSION)\" -pthread
CPPFLAGS += -Isnapshot -Ianalysis -Isql -Icli
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsqlite3 -lzstd) -pthread -lm

ifeq ($(SAN),1)
  BUILD  := build/san
  CFLAGS += -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  BIN    := ugc-analyze-san
else
  BUILD  := build/rel
  BIN    := ugc-analyze
endif

LIB_SRC := $(wildcard snapshot/*.c) $(wildcard analysis/*.c) $(wildcard sql/*.c)
CLI_SRC := $(wildcard cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test demo bench install deps clean check-deps

all: check-deps $(BIN)

$(BIN): $(LIB_OBJ) $(CLI_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit-tests: $(LIB_OBJ) $(TEST_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

# Dependencies: installed when missing and we are root, else named.
check-deps:
	@sh tools/deps.sh

test: check-deps $(BIN) $(BUILD)/unit-tests
	@sh tests/run.sh ./$(BIN) $(BUILD)/unit-tests $(TESTOUT)

demo: all
	@sh tools/demo.sh ./$(BIN)

bench: all
	@sh tools/bench.sh ./$(BIN)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ugc-analyze
	install -m 644 man/ugc-analyze.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/ugc-snapshot.5 $(DESTDIR)$(PREFIX)/share/man/man5/

clean:
	rm -rf build ugc-analyze ugc-analyze-san tests/out tests/out-*
