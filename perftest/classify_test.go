package perftest

import (
	"errors"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		outputs []string
		kind    ErrorKind
		message string
	}{
		{"none", []string{"6.705108\n", ""}, KindUnknown, ""},
		{"device", []string{"IB device nosuchdev not found\n Unable to find the Infiniband/RoCE device\n"}, KindDeviceNotFound,
			"IB device nosuchdev not found; Unable to find the Infiniband/RoCE device"},
		{"no devices", []string{" Did not detect devices \n If device exists, check if driver is up\n"}, KindDeviceNotFound,
			"Did not detect devices; If device exists, check if driver is up"},
		{"port down", []string{" Port number 1 state is Down\n Couldn't set the link layer\n"}, KindDeviceNotFound,
			"Port number 1 state is Down; Couldn't set the link layer"},
		// perftest 4.5 prints the last two messages on one line.
		{"no server 4.5", []string{"Couldn't connect to 198.18.0.1:18547\nUnable to open file descriptor for socket connection Unable to init the socket connection\n"},
			KindConnectFailed, "Couldn't connect to 198.18.0.1:18547; Unable to open file descriptor for socket connection Unable to init the socket connection"},
		// Seen in the lab before rdma_ucm could load (the first capture of
		// the -R cases, perftest 4.5 and 25.01 alike).
		{"rdma_cm unavailable", []string{" rdma_create_event_channel failed\n Unable to create the resources needed by comm struct\n Unable to create RDMA_CM resources\n"},
			KindConnectFailed, "rdma_create_event_channel failed; Unable to create the resources needed by comm struct; Unable to create RDMA_CM resources"},
		{"handshake", []string{"ethernet_read_keys: Couldn't read remote address\n Unable to read to socket/rdma_cm\n Failed to exchange data between server and clients\n"},
			KindHandshake, "ethernet_read_keys: Couldn't read remote address; Unable to read to socket/rdma_cm; Failed to exchange data between server and clients"},
		// The client's completion error is the cause, the server's
		// handshake error its consequence, whichever is passed first.
		{"completion over handshake", []string{"ethernet_read_keys: Couldn't read remote address\n", "",
			" Completion with error at client\n Failed status 10: wr_id 0 syndrom 0x0\nscnt=128, ccnt=0\n Failed to complete run_iter_bw function successfully\n"},
			KindCompletion, "Completion with error at client; Failed status 10: wr_id 0 syndrom 0x0; scnt=128, ccnt=0; Failed to complete run_iter_bw function successfully"},
		{"completion 25.10", []string{string(readTestdata(t, "v26-completion.stderr"))}, KindCompletion,
			"Completion with error at client; Failed status-remote access error (10): wr_id 0 syndrom 0x0; scnt=128, ccnt=0; Failed to complete run_iter_bw function successfully"},
		{"server completion", []string{" Completion with error at server\n Failed status 12: wr_id 0 syndrom 0x81\n rcnt=0\n"}, KindCompletion,
			"Completion with error at server; Failed status 12: wr_id 0 syndrom 0x81; rcnt=0"},
		{"mismatch 26", []string{string(readTestdata(t, "v26-mismatch.stderr")), "ethernet_read_keys: Couldn't read remote address\n"}, KindParamMismatch,
			"size mismatch: local=65536, remote=4096; iters mismatch: local=300, remote=100; Failed to negotiate parameters"},
		{"check alive", []string{string(readTestdata(t, "check-alive.stderr")), " Failed to complete run_iter_bw function successfully\n"}, KindTimeout,
			"Did not get Message for 120 Seconds, exiting..; Total Received=100, Total Iters Required=300"},
		{"qp", []string{string(readTestdata(t, "qp-rtr.stderr"))}, KindQPTransition,
			"Failed to modify QP 0 to RTR; Unable to Connect the HCA's through the link"},
		{"gid over parser", []string{" Gid index should be between 0 and 64\n Parser function exited with Error\n"}, KindGIDIndex,
			"Gid index should be between 0 and 64"},
		{"gid types", []string{"\n Found Incompatibility issue with GID types.\n Please Try to use a different IP version.\n\n"}, KindGIDIndex,
			"Found Incompatibility issue with GID types.; Please Try to use a different IP version."},
		{"invalid option", []string{"ib_send_bw: unrecognized option '--bogus'\n Invalid Command or flag.\n"}, KindInvalidOption,
			"ib_send_bw: unrecognized option '--bogus'; Invalid Command or flag."},
		{"duration and -a", []string{"Duration mode currently doesn't support running on all sizes.\n"}, KindInvalidOption,
			"Duration mode currently doesn't support running on all sizes."},
		{"memlock", []string{"Couldn't allocate MR\n"}, KindResources, "Couldn't allocate MR"},
		{"limit", []string{"Error: BW result is below bw limit\n"}, KindBelowLimit, "Error: BW result is below bw limit"},
		{"crlf", []string{"Couldn't connect to 10.0.0.1:18515\r\n"}, KindConnectFailed, "Couldn't connect to 10.0.0.1:18515"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var outs [][]byte
			for _, o := range tt.outputs {
				outs = append(outs, []byte(o))
			}
			err := Classify(outs...)
			if tt.kind == KindUnknown {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.Kind != tt.kind || e.Message != tt.message {
				t.Errorf("got %v %q, want %v %q", e.Kind, e.Message, tt.kind, tt.message)
			}
			if !errors.Is(err, ErrToolFailed) || !strings.HasPrefix(err.Error(), "perftest: ") {
				t.Errorf("err = %v", err)
			}
			for _, o := range tt.outputs {
				for _, l := range strings.Split(strings.TrimSpace(o), "\n") {
					if l = strings.TrimRight(l, "\r"); l != "" && !strings.Contains(e.Raw, l) && classifyLineKind(l) != KindUnknown {
						t.Errorf("Raw %q lacks %q", e.Raw, l)
					}
				}
			}
		})
	}
}

func classifyLineKind(l string) ErrorKind { k, _ := classifyLine(l); return k }

func TestErrorKindString(t *testing.T) {
	want := map[ErrorKind]string{KindDeviceNotFound: "device_not_found", KindConnectFailed: "connect", KindHandshake: "handshake",
		KindParamMismatch: "param_mismatch", KindQPTransition: "qp_transition", KindCompletion: "completion",
		KindTimeout: "timeout", KindInvalidOption: "invalid_option", KindGIDIndex: "gid_index", ErrorKind(-1): "ErrorKind(-1)"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(k), k.String(), s)
		}
	}
}
