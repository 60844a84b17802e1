package capture

import "testing"

func TestCMIDListening(t *testing.T) {
	// Lines in the layout of iproute2 rdma/res-cmid.c; not yet seen on a real rxe device.
	out := []byte("link rxe0/- cm-idn 3 state LISTEN ps TCP pid 812 comm ib_send_bw src-addr 0.0.0.0:18536 dst-addr 0.0.0.0:0 \n" +
		"link rxe0/1 lqpn 17 qp-type RC state CONNECT ps TCP pid 813 comm ib_send_bw cm-idn 4 src-addr 198.18.0.1:18537 dst-addr 198.18.0.1:40000 \n")
	tests := []struct {
		port int
		want bool
	}{
		{18536, true},
		{18537, false}, // on the port, but not listening
		{1853, false},  // a prefix of the port is not the port
		{0, false},     // dst-addr port 0 is not a source port
	}
	for _, tt := range tests {
		if got := cmIDListening(out, tt.port); got != tt.want {
			t.Errorf("cmIDListening(%d) = %v, want %v", tt.port, got, tt.want)
		}
	}
	if cmIDListening(nil, 18536) {
		t.Error("empty output: listening")
	}
}
