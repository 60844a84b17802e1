#!/bin/sh
# capture.sh records, inside a lab guest, the kernel files the rxe package
# reads, as one manifest on stdout; see README for the command and format.
set -u
walk() { # walk ROOT [MAXDEPTH]: one manifest line per path, one per content line
	set -- "$1" -maxdepth "${2:-64}"
	find "$@" \( -type l -printf 'L\t%p\t%l\n' \) -o \( -type d -printf 'D\t%p\n' \) \
		-o \( -type f -printf 'f\t%p\n' \) 2>/dev/null
	# binary PCI files (config space, ROM, BARs) are listed but not read
	find "$@" -type f ! -name config ! -name rom ! -name 'resource*' ! -name vpd -print0 2>/dev/null |
		xargs -0 -r grep -a -H -Z '' 2>/tmp/err | tr '\0' '\t' | sed 's/^/F\t/'
	sed -n 's/^grep: \(.*\): \([^:]*\)$/E\t\1\t\2/p' /tmp/err
}
cmd() { # cmd NAME CMD...: the output and exit status of a command, one manifest line per line
	n=$1; shift
	{ "$@" 2>&1; echo "exit status $?"; } | sed "s/^/X\t$n\t/"
}
rel=$(uname -r)
ip link add v0 type veth peer name v1
ip link set v0 up; ip link set v1 up
ip -6 addr add 2001:2::1/64 dev v0 nodad

echo "# SCENARIO before-load"
walk /proc/sys/kernel/osrelease
walk /lib/modules/$rel/modules.dep
walk /lib/modules/$rel/modules.builtin
walk /sys/module 1
walk /sys/class/infiniband

modprobe rdma_rxe
rdma link add rxe0 type rxe netdev v0
sleep 2
rxe_up() { # rxe_up SCENARIO ADDR: rxe0's trees, then an ib_send_bw loopback pair to ADDR
	sc=$1 addr=$2
	echo "# SCENARIO $sc"
	walk /proc/sys/kernel/osrelease
	walk /lib/modules/$rel/modules.dep
	walk /lib/modules/$rel/modules.builtin
	walk /sys/module 1
	walk /sys/module/rdma_rxe 1
	walk /sys/class/infiniband
	walk /sys/devices/virtual/infiniband
	cmd rdma-link rdma link show
	(timeout 60 ib_send_bw -d rxe0 -n 5 >/dev/null 2>&1 &)
	sleep 3
	cmd ib_send_bw timeout 40 ib_send_bw -d rxe0 -n 5 "$addr"
}
rxe_up rxe0-ipv6-only 127.0.0.1

ip addr add 198.18.20.1/24 dev v0
sleep 12
rxe_up rxe0-ipv4 198.18.20.1

ip link set v0 down
sleep 2
echo "# SCENARIO rxe0-netdev-down"
walk /sys/class/infiniband
walk /sys/devices/virtual/infiniband/rxe0 1
walk /sys/devices/virtual/infiniband/rxe0/ports/1 1
cmd rdma-link rdma link show
rdma link delete rxe0
