package perftest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Form
	}{
		{"bw", string(readTestdata(t, "v26-send-bw-client.txt")), FormTextBW},
		{"lat", string(readTestdata(t, "v26-write-lat-client.txt")), FormTextLat},
		{"lat duration", " #bytes        #iterations       t_avg[usec]    tps average\n 2             11901            84.73          5900.98\n", FormTextLatDuration},
		{"title only", "                    RDMA_Read Latency Test\n Dual-port       : OFF\n", FormTextLat},
		{"bw title only", "                    Send BW Test\n", FormTextBW},
		{"bare", "6.705108\n", FormBare},
		{"bare with warning", " WARNING: BW peak won't be measured in this run.\n19.649327\n", FormBare},
		{"bare nan", "-nan\n", FormBare},
		{"netperf number", "9426.34\n", FormUnknown},
		{"json", string(readTestdata(t, "v24-write-bw-cpu.json")), FormJSON},
		{"legacy json", string(readTestdata(t, "legacy-atomic-lat-inf.json")), FormJSON},
		{"other json", `{"a": 1}`, FormUnknown},
		{"error", "Couldn't connect to 198.18.0.1:18547\n", FormError},
		{"error with notes", " Max msg size in UD is MTU 1024\n Changing to this MTU\n Failed to modify QP 0 to RTR\n", FormError},
		{"version", "Version: 6.06\n", FormVersion},
		{"empty", "", FormUnknown},
		{"netperf", "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to localhost () port 0 AF_INET : demo\n" +
			"Recv   Send    Send\nSocket Socket  Message  Elapsed\n 87380  16384  16384    10.00    9426.34\n", FormUnknown},
		{"netperf error", "establish control: are you sure there is a netserver listening on 198.18.0.2 at port 12865?\n", FormUnknown},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: Detect = %v, want %v", tt.name, got, tt.want)
		}
	}
	if FormTextLatDuration.String() != "text_lat_duration" || Form(42).String() != "unknown" {
		t.Error("Form.String")
	}
}

// No other tool's captured output (netperf, rdma, ethtool, ...) is taken
// for perftest's, so examples/parse can ask perftest first.
func TestDetectOtherTools(t *testing.T) {
	files, _ := filepath.Glob("../rocekittest/captures/*/*/*/*.std*")
	n := 0
	for _, f := range files {
		if filepath.Base(filepath.Dir(filepath.Dir(f))) == "perftest" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if d := Detect(b); d != FormUnknown {
			t.Errorf("%s: Detect = %v", f, d)
		}
	}
	if n == 0 {
		t.Skip("no other captures under ../testdata")
	}
}
