# Shared by testbed/vm/run (--native) and testbed/vm/guest-run (in the VM):
# load/unload the project's modules and check the kernel log for faults.
# Sourced by bash; messages go to stderr prefixed "vm: ".

# Kernel log lines that mean something went wrong in the kernel.
KLOG_BAD='Oops|BUG:|kernel BUG at|WARNING:|KASAN|UBSAN|RCU stall|rcu_sched self-detected stall|rcu: INFO|self-detected stall|unregister_netdevice: waiting|general protection fault|Call Trace|blocked for more than|soft lockup|hard LOCKUP|Kernel panic'
# Matches of KLOG_BAD that are not faults: CPU vulnerability advisories
# ("Spectre V2 : WARNING: Unprivileged eBPF is enabled ... data leaks possible").
# The taint notes for our unsigned out-of-tree modules ("loading out-of-tree
# module taints kernel", "module verification failed") are expected and do not
# match KLOG_BAD in the first place.
KLOG_IGNORE='WARNING: .*(data leaks possible|vulnerable)'

LOADED_MODULES=()

# Print the last kernel log line: klog_new_lines prints what came after it.
klog_mark() {
	dmesg | tail -n 1
}

# Kernel log lines after MARK (all of them if MARK scrolled out of the buffer).
klog_new_lines() {
	local mark=$1
	dmesg | awk -v mark="$mark" '
		{ lines[NR] = $0; if ($0 == mark) start = NR }
		END { for (i = start + 1; i <= NR; i++) print lines[i] }'
}

# Fail (and show the log section) if the kernel complained since MARK.
# WHEN says what was running, for the report.
klog_check() {
	local mark=$1 when=$2 new
	new=$(klog_new_lines "$mark" | grep -Ev "$KLOG_IGNORE" || true)
	grep -Eq "$KLOG_BAD" <<<"$new" || return 0
	echo "vm: KERNEL PROBLEM in the kernel log $when:" >&2
	grep -E -B 3 -A 40 "$KLOG_BAD" <<<"$new" | sed 's/^/vm: dmesg| /' >&2
	return 1
}

# insmod every *.ko in DIR. Modules that need another project module are
# retried after the others, so no load order has to be written down.
kmod_load() {
	local dir=$1 pending=() failed progress ko
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
			if insmod "$ko" 2>/dev/null; then
				LOADED_MODULES+=("$(basename "$ko" .ko)") progress=1
			else
				failed+=("$ko")
			fi
		done
		if ((!progress)); then
			for ko in "${failed[@]}"; do
				echo "vm: insmod $ko failed:" >&2
				insmod "$ko" 2>&1 | sed 's/^/vm:   /' >&2
			done
			return 1
		fi
		pending=("${failed[@]}")
	done
	echo "vm: loaded ${LOADED_MODULES[*]}" >&2
}

# rmmod what kmod_load loaded, newest first, to prove unloading works.
# Network namespaces the command left behind are deleted first; their
# teardown is asynchronous, so rmmod is retried for a few seconds.
kmod_unload() {
	local i mod try rc=0
	((${#LOADED_MODULES[@]})) || return 0
	ip -all netns delete 2>/dev/null || true
	for ((i = ${#LOADED_MODULES[@]} - 1; i >= 0; i--)); do
		mod=${LOADED_MODULES[i]}
		for try in 1 2 3 4 5 6 7 8 9 10; do
			rmmod "$mod" 2>/dev/null && continue 2
			sleep 0.5
		done
		echo "vm: rmmod $mod failed:" >&2
		rmmod "$mod" 2>&1 | sed 's/^/vm:   /' >&2
		rc=1
	done
	return $rc
}
