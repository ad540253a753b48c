# classic-aqm: PI, REM, BLUE and RED-family qdiscs for Linux, their tc
# parsers, and the testbed that reproduces the high-speed AQM study.
#
#   make            modules for KVER + tc plugins
#   make test       unit tests, then functional tests in the VM (or natively)
#   make demo       the study in short: its five AQMs at 1 Gbit/s (scaled), figures
#   make reproduce  the study in full into results/ (hours under TCG; resumable)
#
# KDIR: kernel build tree; default the running kernel's, else the newest
# Debian linux-headers-*-amd64.
# KROOT: instead, another Debian suite's kernel, from a root made by
# tools/kernel-root: modules are built inside it with its own compiler
# (tools/in-root) and the VM tests boot that kernel (make functional KROOT=..).

QDISCS     ?= $(patsubst tc-patches/q_%.c,%,$(wildcard tc-patches/q_*.c))
BUILD      := $(CURDIR)/build

ifneq ($(KROOT),)
KVER := $(shell cat $(KROOT)/version 2>/dev/null)
ifneq ($(wildcard $(KROOT)/build/Makefile),)
# a kernel built here (tools/debug-kernel): its build tree, our compiler
KDIR := $(KROOT)/build
else
# another suite's packaged kernel (tools/kernel-root): built in its root
KDIR := /usr/src/linux-headers-$(KVER)
IN_KROOT := $(CURDIR)/tools/in-root $(KROOT)/root
endif
else
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))
KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
KMOD_OUT := $(BUILD)/kmod/$(KVER)

IPROUTE2   := $(BUILD)/iproute2
TC_OUT     := $(BUILD)/tc
TC_PLUGINS := $(QDISCS:%=$(TC_OUT)/q_%.so)
TC_CFLAGS  := -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter \
	      -Wno-missing-field-initializers \
	      -I$(CURDIR)/tc-patches -I$(CURDIR)/kmod/include/uapi \
	      -I$(IPROUTE2)/include -I$(IPROUTE2)/include/uapi -I$(IPROUTE2)/tc

UNIT_TESTS := $(QDISCS:%=$(BUILD)/unit/test_%)
UNIT_CFLAGS := -O2 -g -Wall -Wextra -Werror -I$(CURDIR)/kmod/core -I$(CURDIR)/tests/unit
FUZZER := $(BUILD)/fuzz/nlfuzz
FUZZ_COUNT ?= 4000
UNIT_SAN_TESTS := $(QDISCS:%=$(BUILD)/unit-san/test_%)
UNIT_M32_TESTS := $(QDISCS:%=$(BUILD)/unit-m32/test_%)
# every core in one 32-bit object at both of the kernel's optimisation levels
DIV64_CHECKS := $(BUILD)/unit-m32/div64_check-O2.o $(BUILD)/unit-m32/div64_check-Os.o
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# variableScope: kernel and iproute2 style declares at the top of a block
CPPCHECK_FLAGS := -q --enable=warning,style,performance,portability --std=c11 \
	--error-exitcode=1 --suppress=missingIncludeSystem --suppress=variableScope \
	-I$(IPROUTE2)/include -I$(IPROUTE2)/tc -I$(CURDIR)/kmod/include/uapi

VM_RUN := $(CURDIR)/testbed/vm/run $(if $(KROOT),--root $(KROOT))
SAMPLER := $(BUILD)/testbed/sampler
SHORTFLOWS := $(BUILD)/testbed/shortflows
# a recorded queue trace through the PI law (scripts/replay runs it)
PI_REPLAY := $(BUILD)/tools/pi-replay

CHECKPATCH := $(BUILD)/checkpatch/scripts/checkpatch.pl
# Qdisc and Qdisc_ops are the kernel's names; the compat header must test
# LINUX_VERSION_CODE, being out of tree.
CHECKPATCH_FLAGS := --strict --no-tree --quiet --ignore CAMELCASE

IPROUTE2_PATCHES := tc-patches/iproute2-6.1

.PHONY: all modules plugins unit test functional fuzz fuzz-long demo reproduce check bench-account \
	unit-build install uninstall dkms-install dkms-uninstall install-test modules-install \
	plugins-install dkms-tree deb deb-test slurm-test \
	patched-tc-test bench bench-core clean iproute2-patches pi-replay \
	testbed-test kernel-matrix fresh-root-test patched-tc test-debug debug-kernel-test senders

all: modules plugins $(SAMPLER) $(SHORTFLOWS) $(PI_REPLAY)

# CUBIC for the time-scaled testbed: the kernel's own tcp_cubic.c with its
# clock scaled (tools/scaled-cubic); scripts/experiment builds it
senders:
	tools/scaled-cubic $(KVER) $(if $(IN_KROOT),$(KROOT)) >/dev/null

$(SAMPLER): testbed/sampler.c kmod/include/uapi/linux/pkt_sched_aqm.h
	$(MAKE) -C testbed BUILD=$(BUILD)

$(SHORTFLOWS): testbed/shortflows.c
	$(MAKE) -C testbed BUILD=$(BUILD) $@

# the law's own code, built as the unit tests build it
pi-replay: $(PI_REPLAY)
$(PI_REPLAY): tools/pi-replay.c kmod/core/*.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -o $@ $< -lm

modules:
	@test -n "$(KVER)" || { echo "no kernel headers found: set KDIR or KROOT" >&2; exit 1; }
	@mkdir -p $(KMOD_OUT)
	@rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
		--exclude='.*.cmd' --exclude=Module.symvers --exclude=modules.order \
		$(CURDIR)/kmod/ $(KMOD_OUT)/
	$(IN_KROOT) $(MAKE) -C $(KDIR) M=$(KMOD_OUT) W=1 QDISCS="$(QDISCS)" modules

plugins: $(TC_PLUGINS)

$(IPROUTE2)/.version:
	tools/fetch-iproute2-source $(IPROUTE2)

$(TC_OUT)/q_%.so: tc-patches/q_%.c tc-patches/aqm_util.h \
		  kmod/include/uapi/linux/pkt_sched_aqm.h $(IPROUTE2)/.version
	@mkdir -p $(TC_OUT)
	$(CC) $(TC_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BUILD)/unit/test_%: tests/unit/test_%.c tests/unit/aqm_test.h kmod/core/*.h
	@mkdir -p $(BUILD)/unit
	$(CC) $(UNIT_CFLAGS) -o $@ $< -lm

$(BUILD)/unit-san/test_%: tests/unit/test_%.c tests/unit/aqm_test.h kmod/core/*.h
	@mkdir -p $(BUILD)/unit-san
	$(CC) $(UNIT_CFLAGS) $(SANITIZE_FLAGS) -o $@ $< -lm

# each test binary once plainly (a line per check), once under ASan and
# UBSan (a line per binary: no check fails and no sanitizer reports)
# 32-bit builds: the cores' fallbacks for targets without __int128, and no
# 64-bit `/` or `%` (a 32-bit kernel has no __udivdi3 to link a module
# against). gcc turns a division by a constant into a multiply at -O2 but
# not at -Os, hence both; div_u64()/div64_u64() are external calls there.
$(BUILD)/unit-m32/test_%: tests/unit/test_%.c tests/unit/aqm_test.h kmod/core/*.h
	@mkdir -p $(BUILD)/unit-m32
	$(CC) $(UNIT_CFLAGS) -m32 -o $@ $< -lm

$(BUILD)/unit-m32/div64_check-%.o: tests/unit/div64_check.c kmod/core/*.h
	@mkdir -p $(BUILD)/unit-m32
	$(CC) $(UNIT_CFLAGS) -m32 -$* -fkeep-inline-functions -c -o $@ $<

UNIT_PY_TESTS := $(addprefix tests/unit/,test_analysis.py test_reproduce.py \
	test_scaling.py test_flent.py test_scenario.py test_windows.py \
	test_functional_run.py test_console_report.py test_replay.py)
# every unit test built, none run (the fresh root proves its toolchains so)
unit-build: $(UNIT_TESTS) $(UNIT_SAN_TESTS) $(UNIT_M32_TESTS) $(DIV64_CHECKS) $(SHORTFLOWS) \
	$(PI_REPLAY)

unit: unit-build
	@mkdir -p $(BUILD)/results
	@{ for t in $(UNIT_TESTS) $(UNIT_PY_TESTS); do \
		$$t || echo "FAIL: unit: $$(basename $$t) exited $$?"; \
	  done; \
	  for t in $(UNIT_SAN_TESTS); do \
		if out=$$($$t 2>&1) && ! printf '%s\n' "$$out" | grep -q '^FAIL'; \
		then echo "PASS: sanitizers: $$(basename $$t) under ASan and UBSan"; \
		else echo "FAIL: sanitizers: $$(basename $$t) under ASan and UBSan"; \
			printf '%s\n' "$$out" | grep -v '^PASS' | head -20; fi; \
	  done; \
	  tests/unit/run-m32 $(UNIT_M32_TESTS); \
	  if ! undef=$$(nm -u $(DIV64_CHECKS)); \
	  then echo "FAIL: m32: nm -u on the 32-bit object of kmod/core/*.h"; \
	  elif printf '%s\n' "$$undef" | grep -wE '__u?(div|mod)di3'; \
	  then echo "FAIL: m32: kmod/core/*.h divide 64-bit values with / or %: use div_u64()/div64_u64()"; \
	  else echo "PASS: m32: kmod/core/*.h need no __udivdi3, __umoddi3, __divdi3 or __moddi3 (-O2, -Os)"; fi; \
	} | tee $(BUILD)/results/unit.log

$(FUZZER): tests/fuzz/nlfuzz.c kmod/include/uapi/linux/pkt_sched_aqm.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -I$(CURDIR)/kmod/include/uapi/linux -o $@ $< -lmnl

# random and mutated netlink configurations with traffic flowing: a short
# run in make test, the long one (100,000 per qdisc) recorded in results/
fuzz: all $(FUZZER)
	@mkdir -p $(BUILD)/results
	$(VM_RUN) --kernel $(KVER) -- tests/fuzz/run --count $(FUZZ_COUNT) \
		--log $(BUILD)/results/fuzz.log \
		|| echo "FAIL: vm: fuzz run exited $$?" >> $(BUILD)/results/fuzz.log

# tc from iproute2's own source with the patch series applied: its built-in
# parsers must pass the same declarative cases as the plugins
PATCHED_IPROUTE2 := $(BUILD)/iproute2-patched
PATCHED_TC := $(PATCHED_IPROUTE2)/tc/tc

$(PATCHED_TC): $(IPROUTE2)/.version $(wildcard $(IPROUTE2_PATCHES)/*.patch)
	rm -rf $(PATCHED_IPROUTE2)
	cp -a $(IPROUTE2) $(PATCHED_IPROUTE2)
	cd $(PATCHED_IPROUTE2) && for p in $(CURDIR)/$(IPROUTE2_PATCHES)/*.patch; do \
		patch -s -p1 < $$p || exit 1; done
	cd $(PATCHED_IPROUTE2) && ./configure >/dev/null && \
		$(MAKE) -s SUBDIRS="lib tc" >/dev/null

patched-tc: $(PATCHED_TC)

PATCHED_TC_LOG ?= $(BUILD)/results/patched-tc.log
PATCHED_TC_LABEL ?= patched-tc
# for example --every 4: a sample of the cases (the parsers are the plugins')
PATCHED_TC_ARGS ?=
patched-tc-test: all $(PATCHED_TC)
	@mkdir -p $(dir $(PATCHED_TC_LOG))
	$(VM_RUN) --kernel $(KVER) -- env PATH=$(dir $(PATCHED_TC)):$$PATH \
		TC_LIB_DIR=/nonexistent tests/functional/run --no-traffic --skip scaling --tc-only $(PATCHED_TC_ARGS) \
		--label $(PATCHED_TC_LABEL) --log $(PATCHED_TC_LOG) \
		|| echo "FAIL: vm: patched tc run exited $$?" >> $(PATCHED_TC_LOG)

BENCH_CORE := $(BUILD)/bench/core_bench
BENCH_OUT  ?= results/bench/core.md

$(BENCH_CORE): tests/bench/core_bench.c kmod/core/*.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -o $@ $<

# instructions per operation of each algorithm core, counted by callgrind:
# exact, so a change in the table is a change in the code or the compiler
bench-core: $(BENCH_CORE)
	tests/bench/core-bench --binary $(BENCH_CORE) --out $(BENCH_OUT)

# the UDP GSO sender qdisc-bench times per wire packet
GSO_SEND := $(BUILD)/bench/gso_send
$(GSO_SEND): tests/bench/gso_send.c tests/bench/mark.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -o $@ $<

# per-packet cost of every qdisc under pktgen against pfifo, red, pie and
# fq_codel from the same boot, per wire packet under UDP GSO (with cake),
# memory per instance, idle timers; under TCG the guest clock counts
# instructions (--icount), so costs are counts
QDISC_BENCH_OUT ?= results/bench
# the VM's time limit: about an hour on 2 idle cores; longer beside other jobs
BENCH_TIMEOUT ?= 3600
bench: all bench-core $(GSO_SEND)
	$(VM_RUN) --icount --kernel $(KVER) --timeout $(BENCH_TIMEOUT) -- tests/bench/qdisc-bench --out $(QDISC_BENCH_OUT)

# where each qdisc's instructions per packet go, function by function: the
# pktgen and GSO points of make bench once each, every instruction counted
# at its address by a QEMU plugin between marks the guest sets
ACCOUNT_PLUGIN := $(BUILD)/bench/insn_account.so
ACCOUNT_MARK   := $(BUILD)/bench/mark
ACCOUNT_RUN    := $(BUILD)/bench/account
$(ACCOUNT_PLUGIN): tests/bench/insn_account.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC \
		-fvisibility=hidden -o $@ $<
$(ACCOUNT_MARK): tests/bench/mark.c tests/bench/mark.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -o $@ $<
bench-account: all $(ACCOUNT_PLUGIN) $(ACCOUNT_MARK) $(GSO_SEND)
	rm -rf $(ACCOUNT_RUN) && mkdir -p $(ACCOUNT_RUN)
	$(VM_RUN) --icount --kernel $(KVER) --timeout $(BENCH_TIMEOUT) \
		--plugin file=$(ACCOUNT_PLUGIN),out=$(ACCOUNT_RUN)/mark \
		-- tests/bench/qdisc-bench --only account --out $(ACCOUNT_RUN)
	tests/bench/account --dir $(ACCOUNT_RUN) --out $(QDISC_BENCH_OUT)

install-test: all
	@mkdir -p $(BUILD)/results
	$(VM_RUN) --kernel $(KVER) -- tests/install/run --log $(BUILD)/results/install.log \
		|| echo "FAIL: vm: install test exited $$?" >> $(BUILD)/results/install.log

fuzz-long: all $(FUZZER)
	$(VM_RUN) --kernel $(KVER) --timeout 14400 -- tests/fuzz/run --count 100000 \
		--json results/fuzz/long-run.json

# about 11 minutes here, 22 with the host's other core busy; a suite that
# hangs fails after 15 (tests/functional/run --suite-limit) and the rest runs
functional: all
	@mkdir -p $(BUILD)/results
	$(VM_RUN) --kernel $(KVER) --timeout 2700 -- tests/functional/run --log $(BUILD)/results/functional.log \
		|| { echo "FAIL: vm: functional run exited $$?; the guest's console:" && \
		testbed/vm/console-report $(BUILD)/vm/last-console.log | sed 's/^/    /'; } \
		>> $(BUILD)/results/functional.log
	AQM_KERNEL_ROOT=$(KROOT) tests/vm/boot-watchdog $(BUILD)/results/functional.log $(KVER)
	AQM_KERNEL_ROOT=$(KROOT) tests/vm/panic-report $(BUILD)/results/functional.log $(KVER)

# Debian 13's and unstable's kernels (tools/kernel-root, cached in
# ~/.cache/classic-aqm): modules built for each, the functional tests booted
# on MATRIX_TEST's (the lifecycle tests and pi's traffic tests with the
# plugins: every kind enqueues through the same glue, and make functional
# runs them all on 6.1), every declarative case that runs tc and the
# evaluation suite's qdisc arguments (the scaling part) with the suite's
# own tc (its iproute2 loading our plugins) on MATRIX_OWN_TC's, and
# with the patched tc on MATRIX_PATCHED_TC's (none by default: the fresh
# root's test runs the patched tc's cases on 6.1), the README's kernel table
# checked against what ran. The newest kernel runs the functional tests
# (6.1 and it bracket the API changes met): CI's hour holds no more
KERNEL_SUITES ?= trixie sid
MATRIX_TEST ?= sid
MATRIX_TEST_ARGS ?= --no-declarative --skip scaling --traffic-only pi
MATRIX_PATCHED_TC ?=
# the suites' own tc: about 4 minutes a suite here for every case; Debian
# 13's tc (between 6.1's and unstable's, each run in full) every fourth
MATRIX_OWN_TC ?= trixie:4 sid
kernel-matrix: all $(if $(MATRIX_PATCHED_TC),$(PATCHED_TC))
	@mkdir -p $(BUILD)/results
	tools/kernel-matrix --system-kernel $(KVER) --suites "$(KERNEL_SUITES)" \
		--test "$(MATRIX_TEST)" --test-args "$(MATRIX_TEST_ARGS)" \
		--patched-tc "$(MATRIX_PATCHED_TC)" --own-tc "$(MATRIX_OWN_TC)" \
		--log $(BUILD)/results/kernels.log || true

# a campaign of three short runs through scripts/reproduce --slurm on a
# one-node Slurm started (and stopped) by the test itself
slurm-test: all
	@mkdir -p $(BUILD)/results
	tests/slurm/run --log $(BUILD)/results/slurm.log \
		|| echo "FAIL: slurm: run exited $$?" >> $(BUILD)/results/slurm.log

# the dumbbell's fidelity check and a short pi run, through scripts/experiment
# (which boots the VM) with its --out under the host's /tmp; under TCG it
# needs an otherwise idle host (a busy one pauses the guest and fails fidelity)
testbed-test: all
	@mkdir -p $(BUILD)/results
	AQM_KERNEL=$(KVER) $(if $(KROOT),AQM_KERNEL_ROOT=$(KROOT)) AQM_EXPERIMENT_TIMEOUT=1800 \
		testbed/selftest --log $(BUILD)/results/testbed.log \
		|| echo "FAIL: vm: testbed selftest exited $$?" >> $(BUILD)/results/testbed.log

# the whole suite on the debug kernels (tools/debug-kernel, built here from
# Debian's linux-source and cached in ~/.cache/classic-aqm/kernels):
# KASAN and KCSAN flavours, the declarative, traffic and lifecycle tests,
# 20,000 fuzz payloads per kind, a kernel log check and kmemleak scan
# after every suite (tools/test-debug)
test-debug: all $(FUZZER)
	@mkdir -p $(BUILD)/results
	tools/test-debug --log $(BUILD)/results/debug.log

# the short part of it: on the KASAN flavour (with lockdep, kmemleak,
# UBSAN), 1,000 fuzz payloads per kind with UDP flowing through the qdisc
# (every kind's init, change, dump, enqueue, dequeue, timer and destroy), a
# kmemleak scan after each kind; about 8 minutes with the kernel cached,
# 6-15 more to build it on 2 cores
DEBUG_TEST_ARGS ?= --flavours kasan --parts fuzz --fuzz-count 1000
debug-kernel-test: all $(FUZZER)
	@mkdir -p $(BUILD)/results
	tools/test-debug $(DEBUG_TEST_ARGS) --log $(BUILD)/results/debug.log

# every stage runs whatever an earlier one did; a stage that exits
# non-zero is one FAIL line, and the last line is always "N passed, N failed"
# (debug-kernel-test is not one: building the KASAN kernel took 15 minutes
# and its test 8 on this 2-core machine, which CI's hour does not hold).
# fresh-root-test (apt and compilers in a chroot) and install-test (mostly
# depmod, one CPU) run beside the stages after them, which time nothing;
# the traffic tests, testbed-test and slurm-test time the guest, so they
# run on an otherwise idle host: before them, and after they have ended
# (--wait)
TEST_STAGES := check unit functional kernel-matrix testbed-test \
	--background fresh-root-test --background install-test fuzz deb-test \
	--wait slurm-test
test:
	@rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results
	@tests/stages $(BUILD)/results $(TEST_STAGES)
	@tests/summarize $(BUILD)/results/*.log

# tools/install-deps is complete: a minimal Debian 12 root gets only what it
# installs, then builds, tests and boots the VM there (about 5 minutes)
fresh-root-test:
	@mkdir -p $(BUILD)/results
	tests/fresh-root/run --log $(BUILD)/results/fresh-root.log \
		|| echo "FAIL: fresh-root: run exited $$?" >> $(BUILD)/results/fresh-root.log

demo: all
	scripts/reproduce --quick

reproduce: all
	scripts/reproduce

# the tc parsers as a patch series for the iproute2 tree (same sources)
iproute2-patches: $(IPROUTE2)/.version
	tools/make-iproute2-patches $(IPROUTE2) $(IPROUTE2_PATCHES)

$(CHECKPATCH):
	tools/fetch-checkpatch $(BUILD)/checkpatch

# kernel hygiene: checkpatch --strict and sparse on every kernel file
check: $(CHECKPATCH) modules $(IPROUTE2)/.version
	@mkdir -p $(BUILD)/results
	@{ if $(CHECKPATCH) $(CHECKPATCH_FLAGS) -f kmod/sch_*.c kmod/core/*.h kmod/aqm_qdisc.h && \
	      $(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f kmod/aqm_compat.h; \
	  then echo "PASS: hygiene: checkpatch --strict on kmod/"; \
	  else echo "FAIL: hygiene: checkpatch --strict on kmod/"; fi; \
	  $(MAKE) -s -C $(KDIR) M=$(KMOD_OUT) QDISCS="$(QDISCS)" C=2 modules >$(BUILD)/sparse.log 2>&1; \
	  if grep -E "warning|error" $(BUILD)/sparse.log; \
	  then echo "FAIL: hygiene: sparse (C=2) on kmod/"; \
	  else echo "PASS: hygiene: sparse (C=2) on kmod/"; fi; \
	  tools/make-iproute2-patches $(IPROUTE2) $(BUILD)/iproute2-patches >/dev/null; \
	  if diff -r -I '^From [0-9a-f]\{40\} ' -I '^Date: ' -I '^index ' \
		$(IPROUTE2_PATCHES) $(BUILD)/iproute2-patches; \
	  then echo "PASS: hygiene: $(IPROUTE2_PATCHES) matches tc-patches/*.c"; \
	  else echo "FAIL: hygiene: $(IPROUTE2_PATCHES) is stale: run make iproute2-patches"; fi; \
	  if ! groff -man -ww -z -Tutf8 $(MAN_PAGES) 2>&1 | grep .; \
	  then echo "PASS: hygiene: man pages render without warnings"; \
	  else echo "FAIL: hygiene: man pages render without warnings"; fi; \
	  if cppcheck $(CPPCHECK_FLAGS) tc-patches/q_*.c testbed/sampler.c testbed/shortflows.c && \
	     cppcheck $(CPPCHECK_FLAGS) -I$(CURDIR)/kmod/core tools/pi-replay.c; \
	  then echo "PASS: hygiene: cppcheck on the tc plugins, the testbed tools and pi-replay"; \
	  else echo "FAIL: hygiene: cppcheck on the tc plugins, the testbed tools and pi-replay"; fi; \
	} | tee $(BUILD)/results/check.log

# Installation: modules under /lib/modules/KVER/updates (depmod run), tc
# plugins into tc's lib dir, man pages. DESTDIR stages a package tree.
VERSION    := $(shell cat VERSION)
DESTDIR    ?=
PREFIX     ?= /usr
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
TC_LIBDIR  ?= $(firstword $(wildcard /usr/lib/$(MULTIARCH)/tc /usr/lib64/tc /usr/lib/tc) \
		/usr/lib/tc)
MOD_DIR    := /lib/modules/$(KVER)/updates
MAN_DIR    := $(PREFIX)/share/man/man8
MAN_PAGES  := $(QDISCS:%=doc/man/tc-%.8)
DKMS_SRC   := /usr/src/classic-aqm-$(VERSION)

install: modules-install plugins-install

modules-install:
	@for f in $(QDISCS:%=$(KMOD_OUT)/sch_%.ko); do \
		test -f $$f || { echo "install: no $$f: run make first" >&2; exit 1; }; done
	install -d $(DESTDIR)$(MOD_DIR)
	install -m 0644 $(QDISCS:%=$(KMOD_OUT)/sch_%.ko) $(DESTDIR)$(MOD_DIR)/
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# the tc plugins and their man pages (classic-aqm-tc's content)
plugins-install:
	@for f in $(TC_PLUGINS); do \
		test -f $$f || { echo "install: no $$f: run make first" >&2; exit 1; }; done
	install -d $(DESTDIR)$(TC_LIBDIR) $(DESTDIR)$(MAN_DIR)
	install -m 0644 $(TC_PLUGINS) $(DESTDIR)$(TC_LIBDIR)/
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MAN_DIR)/

uninstall:
	rm -f $(QDISCS:%=$(DESTDIR)$(MOD_DIR)/sch_%.ko) \
		$(QDISCS:%=$(DESTDIR)$(TC_LIBDIR)/q_%.so) $(QDISCS:%=$(DESTDIR)$(MAN_DIR)/tc-%.8)
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# The module sources as DKMS takes them (classic-aqm-dkms's content):
# kmod/ and dkms.conf with the version and the module list filled in
dkms-tree:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)
	cp -r kmod $(DESTDIR)$(DKMS_SRC)/
	{ sed 's/@VERSION@/$(VERSION)/' dkms.conf.in; i=0; for q in $(QDISCS); do \
		echo "BUILT_MODULE_NAME[$$i]=\"sch_$$q\""; \
		echo "BUILT_MODULE_LOCATION[$$i]=\"kmod/\""; \
		echo "DEST_MODULE_LOCATION[$$i]=\"/updates/dkms\""; i=$$((i + 1)); \
	  done; } > $(DESTDIR)$(DKMS_SRC)/dkms.conf

# DKMS builds the modules for this and every later kernel
dkms-install: dkms-tree
	dkms add classic-aqm/$(VERSION)
	dkms install classic-aqm/$(VERSION) -k $(KVER)

dkms-uninstall:
	dkms remove classic-aqm/$(VERSION) --all
	rm -rf $(DKMS_SRC)

# Debian packages, classic-aqm-dkms and classic-aqm-tc, into build/deb
# (debian/; tools/make-deb): built from a copy of the tree, lintian-checked
DEB_OUT := $(BUILD)/deb
deb: $(IPROUTE2)/.version
	tools/make-deb $(DEB_OUT)

# the packages installed with apt in a clean guest, used, purged
deb-test: deb
	@mkdir -p $(BUILD)/results && rm -f $(BUILD)/results/deb.log
	$(VM_RUN) --kernel $(KVER) --no-modules -- tests/deb/run $(DEB_OUT) \
		--log $(BUILD)/results/deb.log \
		|| echo "FAIL: vm: deb test exited $$?" >> $(BUILD)/results/deb.log

clean:
	rm -rf $(BUILD)/kmod $(BUILD)/tc $(BUILD)/unit $(BUILD)/unit-san $(BUILD)/unit-m32 $(BUILD)/fuzz $(BUILD)/bench $(BUILD)/results $(BUILD)/testbed/sampler $(SHORTFLOWS) $(BUILD)/tools
