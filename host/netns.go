package host

// NetnsDir is where ip(8) keeps named network namespaces.
const NetnsDir = "/run/netns"

// Netns runs commands in the named network namespace NAME (one that
// "ip netns add NAME" made, bound at /run/netns/NAME), with everything else
// as for Local: own process group, killed whole on cancel, PDEATHSIG.
//
// Commands run through "ip netns exec NAME", which enters the namespace,
// then execs the program in place (so the PID is the program's). It is
// preferred to entering the namespace with setns on a locked thread before
// fork: ip also remounts /sys for the namespace, so tools that read
// /sys/class/net see the namespace's interfaces, and it applies
// /etc/netns/NAME/*; and the forking thread stays an ordinary one, where
// after setns it would have to be restored, or discarded (which fires
// PDEATHSIG in the child). The cost is one exec of ip (a few milliseconds)
// per command. TCPSockets, which starts no process, enters the namespace
// with setns on a locked thread and returns.
//
// Similar to: ip netns exec NAME PROG ARGS
type Netns struct {
	Name string // as in "ip netns add NAME"
}

// String returns "netns NAME".
func (n Netns) String() string { return "netns " + n.Name }
