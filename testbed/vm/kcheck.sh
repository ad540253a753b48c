# shellcheck shell=bash
# Shared by testbed/vm/run (--native) and testbed/vm/guest-run (in the VM):
# load/unload the project's modules and check the kernel log for faults.
# Sourced by bash; messages go to stderr prefixed "vm: ". Uses few external
# commands on purpose: under TCG each one costs ~0.1 s or more to start.

# Kernel log lines that mean something went wrong in the kernel.
# The debug kernels (tools/debug-kernel) add their reports: KASAN and
# KCSAN ("BUG: KASAN: use-after-free in ...", "BUG: KCSAN: data-race in
# ..."), lockdep ("WARNING: possible circular locking dependency detected",
# "WARNING: suspicious RCU usage", "WARNING: inconsistent lock state"),
# "BUG: sleeping function called from invalid context", UBSAN, the
# reference trackers ("ref_tracker: netdev@... has 1/2 users at") and
# refcount_t ("refcount_t: underflow; use-after-free.").
KLOG_BAD='Oops|BUG:|kernel BUG at|WARNING:|KASAN|UBSAN|RCU stall|rcu_sched self-detected stall|rcu: INFO|self-detected stall|unregister_netdevice: waiting|general protection fault|Call Trace|blocked for more than|soft lockup|hard LOCKUP|Kernel panic|ref_tracker: |refcount_t: |DEBUG_LOCKS_WARN_ON'
# Matches of KLOG_BAD that are not faults: CPU vulnerability advisories such
# as "Speculative Return Stack Overflow: WARNING: See https://..." or
# "Spectre V2 : WARNING: Unprivileged eBPF is enabled ... data leaks possible"
# (real warnings start with "WARNING:"). The taint notes for our unsigned
# out-of-tree modules ("loading out-of-tree module taints kernel", "module
# verification failed: ...") are expected and do not match KLOG_BAD anyway.
KLOG_IGNORE='(Spectre|RETBleed|Speculative|MDS|TAA|MMIO|SRBDS|GDS|L1TF|RFDS|ITS|BHI|VMSCAPE|Transient|Register File)[^:]*: +WARNING:|WARNING: .*data leaks? possible'
# A KCSAN data race counts only if it involves our modules: a frame or a
# symbol of theirs ("pi_dump+0x6c/0x1d0 [sch_pi]") or one of their files
# anywhere in the report. Races elsewhere in the kernel are counted and
# passed over (KCSAN instruments the whole kernel).
KLOG_OURS=${KLOG_OURS:-'\[sch_(pi|rem|blue|ared)\]|sch_(pi|rem|blue|ared)\.[ch]|kmod/core/[a-z_0-9]+\.h'}
KLOG_KCSAN='BUG: KCSAN: '

KTOOL=${KTOOL:-} # run insmod, rmmod, dmesg through this (busybox), if set
KLOG_MARK=       # last kernel log line already checked
KLOG_LINES=()
LOADED_MODULES=()
# A file that carries the mark and the kmemleak objects already reported
# from one klog_check to the next across processes (guest-run exports it),
# so that a test checking after each of its parts sees each report once.
KCHECK_STATE=${KCHECK_STATE:-}

kcheck_load() {
	[[ -n $KCHECK_STATE && -f $KCHECK_STATE ]] || return 0
	{ IFS= read -r KLOG_MARK && IFS= read -r KMEMLEAK_SEEN; } <"$KCHECK_STATE"
}

kcheck_save() {
	[[ -z $KCHECK_STATE ]] || printf '%s\n%s\n' "$KLOG_MARK" "$KMEMLEAK_SEEN" >"$KCHECK_STATE"
}

# Read the kernel log into the array KLOG_LINES.
klog_read() {
	local log
	log=$($KTOOL dmesg) || return 1
	KLOG_LINES=()
	[[ -z $log ]] || mapfile -t KLOG_LINES <<<"$log"
}

klog_mark() {
	klog_read
	((${#KLOG_LINES[@]} == 0)) || KLOG_MARK=${KLOG_LINES[-1]}
}

# Fail, showing the log section, if the kernel complained since the mark
# (since boot if the mark scrolled out of the log buffer). Moves the mark.
# WHEN says what was going on, for the report.
klog_check() {
	local when=$1 i n start=0 first=-1 last=-1 end leaks=0
	local kcsan_ours kcsan_end kcsan_other=0 floor
	kcheck_load
	if ! klog_read; then
		echo "vm: cannot read the kernel log (dmesg)" >&2
		return 1
	fi
	n=${#KLOG_LINES[@]}
	for ((i = n - 1; i >= 0; i--)); do
		[[ ${KLOG_LINES[i]} == "$KLOG_MARK" ]] && start=$((i + 1)) && break
	done
	((n == 0)) || KLOG_MARK=${KLOG_LINES[-1]}
	floor=$start
	for ((i = start; i < n; i++)); do
		if [[ ${KLOG_LINES[i]} =~ $KLOG_KCSAN ]]; then
			klog_kcsan_report "$i"
			if ((!kcsan_ours)); then
				((first >= 0)) || floor=$((kcsan_end + 1)) # no context from it
				i=$kcsan_end && continue
			fi
		fi
		if [[ ${KLOG_LINES[i]} =~ $KLOG_BAD && ! ${KLOG_LINES[i]} =~ $KLOG_IGNORE ]]; then
			((first >= 0)) || first=$i
			last=$i
		fi
	done
	((kcsan_other == 0)) ||
		echo "vm: note: $kcsan_other KCSAN data race(s) $when not involving our modules, passed over" >&2
	kmemleak_check "$when" || leaks=1
	kcheck_save
	((first >= 0)) || return "$leaks"
	echo "vm: KERNEL PROBLEM in the kernel log $when:" >&2
	first=$((first - 3 < floor ? floor : first - 3))
	end=$((last + 40 < n ? last + 40 : n - 1))
	for ((i = first; i <= end; i++)); do
		echo "vm: dmesg| ${KLOG_LINES[i]}" >&2
	done
	return 1
}

# The KCSAN report starting at line $1 of KLOG_LINES: sets kcsan_end (its
# last line, the closing rule of '='), kcsan_ours (1 if it involves our
# modules) and counts the others in kcsan_other.
klog_kcsan_report() {
	local j
	kcsan_ours=0 kcsan_end=$1
	for ((j = $1; j < n && j < $1 + 200; j++)); do
		[[ ${KLOG_LINES[j]} =~ $KLOG_OURS ]] && kcsan_ours=1
		kcsan_end=$j
		((j > $1)) && [[ ${KLOG_LINES[j]} =~ ={20}$ ]] && break
	done
	((kcsan_ours)) || kcsan_other=$((kcsan_other + 1))
}

# kmemleak (debug kernels): objects nothing points to any more. The kernel
# scans only when asked (tools/debug-config/debug.config: no automatic
# scan). kmemleak_start, before the modules are loaded, puts what the
# kernel leaked while booting aside; klog_check then scans and fails on any
# "unreferenced object" not reported before, showing kmemleak's report.
# Inherited by the command (AQM_KMEMLEAK), so a test calling klog_check
# itself scans too.
KMEMLEAK=/sys/kernel/debug/kmemleak
KMEMLEAK_SEEN=' '

kmemleak_start() {
	if [[ ! -e $KMEMLEAK && -d /sys/kernel/debug ]]; then
		$KTOOL mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	fi
	[[ -w $KMEMLEAK ]] || return 0
	if ! { kmemleak_scan && echo clear >"$KMEMLEAK"; }; then
		echo "vm: kmemleak: cannot scan ($KMEMLEAK)" >&2
		return 1
	fi
	export AQM_KMEMLEAK=1
	echo "vm: kmemleak on: scanned after the command and after each test's own checks" >&2
}

# Two scans: an object whose contents changed since the previous scan is
# not reported by this one, and a new object has no previous scan.
kmemleak_scan() {
	echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK"
}

kmemleak_check() {
	local when=$1 report line show=0 new=0 out=()
	[[ ${AQM_KMEMLEAK:-} == 1 && -w $KMEMLEAK ]] || return 0
	if ! { kmemleak_scan && report=$(<"$KMEMLEAK"); }; then
		echo "vm: kmemleak: cannot scan ($KMEMLEAK)" >&2
		return 1
	fi
	while IFS= read -r line; do
		if [[ $line =~ ^unreferenced\ object\ (0x[0-9a-f]+) ]]; then
			show=0
			if [[ $KMEMLEAK_SEEN != *" ${BASH_REMATCH[1]} "* ]]; then
				KMEMLEAK_SEEN+="${BASH_REMATCH[1]} " show=1 new=$((new + 1))
			fi
		fi
		((show)) && out+=("$line")
	done <<<"$report"
	((new)) || return 0
	echo "vm: KERNEL PROBLEM: kmemleak: $new unreferenced object(s) $when:" >&2
	for line in "${out[@]}"; do
		echo "vm: kmemleak| $line" >&2
	done
	return 1
}

# insmod every *.ko in DIR. Modules that need another project module are
# retried after the others, so no load order has to be written down.
kmod_load() {
	local dir=$1 pending failed progress ko
	shopt -s nullglob
	pending=("$dir"/*.ko)
	shopt -u nullglob
	if ((${#pending[@]} == 0)); then
		echo "vm: warning: no modules in $dir (build them first); running without" >&2
		return 0
	fi
	while ((${#pending[@]})); do
		failed=() progress=0
		for ko in "${pending[@]}"; do
			if $KTOOL insmod "$ko" 2>/dev/null; then
				ko=${ko##*/}
				LOADED_MODULES+=("${ko%.ko}") progress=1
			else
				failed+=("$ko")
			fi
		done
		if ((!progress)); then
			for ko in "${failed[@]}"; do
				echo "vm: insmod $ko failed: $($KTOOL insmod "$ko" 2>&1)" >&2
			done
			return 1
		fi
		pending=("${failed[@]}")
	done
	echo "vm: loaded ${LOADED_MODULES[*]}" >&2
}

# rmmod what kmod_load loaded, newest first, to prove unloading works. If a
# module is still in use, run RELEASE (a command that frees what the test
# left behind; optional) and retry for a few seconds: the teardown of network
# namespaces, which may hold one of our qdiscs, is asynchronous.
kmod_unload() {
	local release=${1:-} i mods=() busy=()
	((${#LOADED_MODULES[@]})) || return 0
	for ((i = ${#LOADED_MODULES[@]} - 1; i >= 0; i--)); do
		mods+=("${LOADED_MODULES[i]}")
	done
	LOADED_MODULES=()
	$KTOOL rmmod "${mods[@]}" 2>/dev/null && return 0
	[[ -z $release ]] || $release
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		busy=()
		for i in "${mods[@]}"; do
			[[ -e /sys/module/${i//-/_} ]] && ! $KTOOL rmmod "$i" 2>/dev/null && busy+=("$i")
		done
		((${#busy[@]})) || return 0
		sleep 0.5
	done
	for i in "${busy[@]}"; do
		echo "vm: rmmod $i failed: $($KTOOL rmmod "$i" 2>&1)" >&2
	done
	return 1
}
