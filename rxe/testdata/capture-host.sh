#!/bin/sh
# capture-host.sh records, on a machine whose kernel has no RDMA (the
# development host), the files Root.RXEModule reads; see README.
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
echo "# SCENARIO host-no-rdma"
walk /proc/sys/kernel/osrelease
walk /lib/modules/$rel/modules.dep
walk /lib/modules/$rel/modules.builtin
walk /sys/module 1
walk /sys/class/infiniband
cmd rdma-link rdma link show
