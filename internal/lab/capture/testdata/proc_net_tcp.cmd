# proc_net_tcp.txt and proc_net_tcp6.txt: /proc/<pid>/net/tcp and tcp6 of a netserver.
# Captured on the development host (Debian bookworm userland, kernel 6.18, x86_64,
# netperf 2.7.0-0.1), as root, in a fresh network namespace, while two netservers listened
# and one netperf TCP_STREAM test ran, so that the tables hold LISTEN and ESTABLISHED rows.
# (netperf needs a non-loopback address in the namespace: getaddrinfo's AI_ADDRCONFIG
# otherwise fails to resolve even "127.0.0.1".)
ip netns add rkfix
ip -n rkfix link set lo up
ip -n rkfix link add rkfa type veth peer name rkfb
ip -n rkfix addr add 198.18.3.1/24 dev rkfa
ip -n rkfix link set rkfa up
ip -n rkfix link set rkfb up
ip netns exec rkfix netserver -D -p 18515 & P1=$!                  # LISTEN [::]:18515 in tcp6 (4853)
ip netns exec rkfix netserver -D -4 -L 127.0.0.1 -p 12865 & P2=$!  # LISTEN 127.0.0.1:12865 in tcp (3241)
sleep 0.5
ip netns exec rkfix netperf -H 127.0.0.1 -p 12865 -t TCP_STREAM -l 4 & P3=$!
sleep 2
cat /proc/$P2/net/tcp  > proc_net_tcp.txt    # + netserver's data listener 0.0.0.0:45471 (B19F),
cat /proc/$P2/net/tcp6 > proc_net_tcp6.txt   #   control and data connections in state 01
wait $P3; kill $P1 $P2; ip netns del rkfix
