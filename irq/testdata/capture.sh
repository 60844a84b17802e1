#!/bin/sh
# capture.sh: copies the kernel files package irq reads into a tree, keeping
# file modes and the sysfs links of the netdevs, and prints the tree as a
# base64 tar.gz between BEGIN/END markers. With "traffic" it also moves eth0
# and eth1 into two namespaces, starts netserver in one, and copies /proc
# before and after a 2 s netperf TCP_STREAM between them (lab guests only).
#
#   sh capture.sh            # tree of this machine only
#   sh capture.sh traffic    # plus traffic/before and traffic/after
set -eu
OUT=$(mktemp -d)

cpf() { # copy files' contents and modes
	for f in "$@"; do
		[ -e "$f" ] || continue
		[ -f "$f" ] || continue
		mkdir -p "$D$(dirname "$f")"
		if cat "$f" >"$D$f" 2>/dev/null; then
			chmod --reference="$f" "$D$f"
		else
			rm -f "$D$f"
		fi
	done
}
cpl() { # copy symlinks as they are
	for l in "$@"; do
		[ -L "$l" ] || continue
		mkdir -p "$D$(dirname "$l")"
		ln -sfn "$(readlink "$l")" "$D$l"
	done
}
procfiles() {
	cpf /proc/interrupts /proc/softirqs /proc/stat /proc/net/softnet_stat
}
tree() {
	procfiles
	cpf /proc/irq/default_smp_affinity
	for i in /proc/irq/[0-9]*; do
		cpf "$i/smp_affinity" "$i/smp_affinity_list" "$i/effective_affinity" "$i/effective_affinity_list" "$i/node"
	done
	for p in /proc/[0-9]*; do cpf "$p/comm"; done
	cpf /sys/devices/system/cpu/online /sys/devices/system/cpu/possible /sys/devices/system/cpu/present
	cpf /sys/devices/system/node/online /sys/devices/system/node/possible
	for n in /sys/devices/system/node/node[0-9]*; do cpf "$n/cpulist"; done
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		cpf "$c/online" "$c/cpufreq/scaling_governor" "$c/cpufreq/scaling_available_governors" "$c/cpufreq/scaling_driver"
	done
	for n in /sys/class/net/*; do
		cpl "$n"
		real=$(readlink -f "$n")
		cpl "$real/device"
		[ -e "$n/device" ] || continue
		dev=$(readlink -f "$n/device")
		for d in "$dev" "$(dirname "$dev")"; do
			cpf "$d/numa_node" "$d/local_cpulist" "$d/uevent" "$d/irq"
			cpl "$d/driver"
			for m in "$d"/msi_irqs/*; do cpf "$m"; done
		done
	done
}

D=$OUT/tree
tree

if [ "${1:-}" = traffic ]; then
	ip netns add capA
	ip netns add capB
	ip link set eth0 netns capA
	ip link set eth1 netns capB
	ip -n capA addr add 198.18.30.1/24 dev eth0
	ip -n capB addr add 198.18.30.2/24 dev eth1
	ip -n capA link set lo up
	ip -n capB link set lo up
	ip -n capA link set eth0 up
	ip -n capB link set eth1 up
	ip netns exec capB netserver -D -4 -p 12866 >/dev/null 2>&1 &
	pid=$!
	# wait for the LISTEN socket (state 0A) on port 12866 = 0x3242
	n=0
	until grep -q ':3242 00000000:0000 0A' "/proc/$pid/net/tcp" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 600 ] || { echo "netserver did not listen" >&2; exit 1; }
		sleep 0.1
	done
	D=$OUT/traffic/before
	procfiles
	ip netns exec capA netperf -H 198.18.30.2 -p 12866 -t TCP_STREAM -l 2 >"$OUT/traffic/netperf.txt" 2>&1
	D=$OUT/traffic/after
	procfiles
	kill "$pid"
	uname -r >"$OUT/traffic/uname.txt"
fi
uname -a >"$OUT/uname.txt"
echo BEGIN-CAPTURE
tar -C "$OUT" -czf - . | base64 -w0
echo
echo END-CAPTURE
rm -rf "$OUT"
