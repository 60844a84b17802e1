#!/bin/sh
# capture.sh records, inside a lab guest with two virtio-net NICs, the kernel
# files the nic package reads, as one manifest on stdout; see README.
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
ip link add v0 type veth peer name v1
ip link set eth0 up; ip link set v0 up; ip link set v1 up
ip addr add 198.18.21.1/24 dev v0
ip addr add 198.18.21.2/24 dev v1
dev0=$(readlink -f /sys/class/net/eth0/device)
pci0=$(dirname "$dev0")

echo "# SCENARIO virtio-veth"
walk /proc/sys/kernel/osrelease
walk /sys/class/net
walk /sys/bus/pci/devices 1
walk "$pci0" 1
walk "$dev0" 1
walk "$dev0/net/eth0" 2
walk /sys/devices/virtual/net/v0 1
walk /sys/devices/system/node 2
walk /sys/devices/system/cpu/online
walk /sys/devices/system/cpu/possible
walk /proc/net/snmp
walk /proc/net/dev
cmd ethtool-i ethtool -i eth0
cmd ethtool-l ethtool -l eth0
cmd ethtool-g ethtool -g eth0
cmd ethtool-S ethtool -S eth0
cmd ethtool ethtool eth0
cmd ethtool-k ethtool -k eth0
cmd ethtool-i-veth ethtool -i v0
cmd ethtool-S-veth ethtool -S v0
cmd ethtool-g-veth ethtool -g v0
cmd ethtool-l-veth ethtool -l v0

netserver -p 12865 >/dev/null 2>&1
sleep 1
cmd netperf netperf -H 198.18.21.2 -L 198.18.21.1 -t UDP_STREAM -l 3 -- -m 1400 -s 256K -S 4K
echo "# SCENARIO after-udp-loss"
walk /proc/net/snmp
walk /proc/net/dev

# the RoCE path MTU rdma_rxe derives from its netdev's MTU
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev v0
for m in 1500 1103 1104 4175 4176 9000; do
	ip link set v0 mtu $m
	cmd "rxe-active-mtu-$m" sh -c "ibv_devinfo -d rxe0 | grep -E 'active_mtu|max_mtu'"
done
rdma link delete rxe0
