# shellcheck shell=bash
# Shared by testbed/vm/run (--native) and testbed/vm/guest-run (in the VM):
# load/unload the project's modules and check the kernel log for faults.
# Sourced by bash; messages go to stderr prefixed "vm: ". Uses few external
# commands on purpose: under TCG each one costs ~0.1 s or more to start.

# Kernel log lines that mean something went wrong in the kernel.
KLOG_BAD='Oops|BUG:|kernel BUG at|WARNING:|KASAN|UBSAN|RCU stall|rcu_sched self-detected stall|rcu: INFO|self-detected stall|unregister_netdevice: waiting|general protection fault|Call Trace|blocked for more than|soft lockup|hard LOCKUP|Kernel panic'
# Matches of KLOG_BAD that are not faults: CPU vulnerability advisories such
# as "Speculative Return Stack Overflow: WARNING: See https://..." or
# "Spectre V2 : WARNING: Unprivileged eBPF is enabled ... data leaks possible"
# (real warnings start with "WARNING:"). The taint notes for our unsigned
# out-of-tree modules ("loading out-of-tree module taints kernel", "module
# verification failed: ...") are expected and do not match KLOG_BAD anyway.
KLOG_IGNORE='(Spectre|RETBleed|Speculative|MDS|TAA|MMIO|SRBDS|GDS|L1TF|RFDS|ITS|BHI|VMSCAPE|Transient|Register File)[^:]*: +WARNING:|WARNING: .*data leaks? possible'

KTOOL=${KTOOL:-} # run insmod, rmmod, dmesg through this (busybox), if set
KLOG_MARK=       # last kernel log line already checked
KLOG_LINES=()
LOADED_MODULES=()

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
	local when=$1 i n start=0 first=-1 last=-1 end
	if ! klog_read; then
		echo "vm: cannot read the kernel log (dmesg)" >&2
		return 1
	fi
	n=${#KLOG_LINES[@]}
	for ((i = n - 1; i >= 0; i--)); do
		[[ ${KLOG_LINES[i]} == "$KLOG_MARK" ]] && start=$((i + 1)) && break
	done
	((n == 0)) || KLOG_MARK=${KLOG_LINES[-1]}
	for ((i = start; i < n; i++)); do
		if [[ ${KLOG_LINES[i]} =~ $KLOG_BAD && ! ${KLOG_LINES[i]} =~ $KLOG_IGNORE ]]; then
			((first >= 0)) || first=$i
			last=$i
		fi
	done
	((first >= 0)) || return 0
	echo "vm: KERNEL PROBLEM in the kernel log $when:" >&2
	first=$((first - 3 < start ? start : first - 3))
	end=$((last + 40 < n ? last + 40 : n - 1))
	for ((i = first; i <= end; i++)); do
		echo "vm: dmesg| ${KLOG_LINES[i]}" >&2
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
