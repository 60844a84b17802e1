package capture

import (
	"strconv"
	"strings"
)

// cmIDListening reports whether the output of "rdma res show cm_id" lists a cm_id in state
// LISTEN whose source address has the given port. A line looks like (iproute2
// rdma/res-cmid.c):
//
//	link rxe0/- cm-idn 3 state LISTEN ps TCP pid 812 comm ib_send_bw src-addr 0.0.0.0:18536 dst-addr 0.0.0.0:0
func cmIDListening(out []byte, port int) bool {
	suffix := ":" + strconv.Itoa(port)
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		listen, onPort := false, false
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "state":
				listen = f[i+1] == "LISTEN"
			case "src-addr":
				onPort = strings.HasSuffix(f[i+1], suffix)
			}
		}
		if listen && onPort {
			return true
		}
	}
	return false
}
