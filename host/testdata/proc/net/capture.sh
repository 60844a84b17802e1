#!/bin/sh
# Captures tcp and tcp6 in this directory from a fresh network namespace that
# holds: netserver listening on 0.0.0.0:18515 (tcp, IPv4 only) and on
# [::]:12865 (tcp6, dual stack), one IPv4 and one IPv6 loopback connection
# to them, and a python listener on [::1]:4791 with a backlog connection.
# Run as root from host/testdata/proc/net:  sh capture.sh
set -e
NS=hosttest-fixture
ip netns add $NS
trap 'kill $S1 $S2 $PY 2>/dev/null; wait; ip netns del $NS' EXIT
ip -n $NS link set lo up
ip netns exec $NS netserver -D -4 -p 18515 >/dev/null 2>&1 & S1=$!
ip netns exec $NS netserver -D -6 -p 12865 >/dev/null 2>&1 & S2=$!
ip netns exec $NS /usr/bin/python3 -c '
import socket, time
time.sleep(0.5)
a = socket.create_connection(("127.0.0.1", 18515))
b = socket.create_connection(("::1", 12865))
l = socket.socket(socket.AF_INET6); l.bind(("::1", 4791)); l.listen(1)
c = socket.create_connection(("::1", 4791))
time.sleep(60)
' & PY=$!
sleep 2
cat /proc/$PY/net/tcp > tcp
cat /proc/$PY/net/tcp6 > tcp6
