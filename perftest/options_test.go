package perftest

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTests(t *testing.T) {
	want := map[Test]string{
		SendBW: "ib_send_bw", WriteBW: "ib_write_bw", ReadBW: "ib_read_bw", AtomicBW: "ib_atomic_bw",
		SendLat: "ib_send_lat", WriteLat: "ib_write_lat", ReadLat: "ib_read_lat", AtomicLat: "ib_atomic_lat",
	}
	if len(Tests()) != len(want) {
		t.Fatalf("Tests() = %v", Tests())
	}
	for _, tt := range Tests() {
		if tt.Program() != want[tt] || tt.String() != want[tt] {
			t.Errorf("%d: Program %q String %q, want %q", tt, tt.Program(), tt.String(), want[tt])
		}
		if tt.Latency() != strings.HasSuffix(want[tt], "_lat") {
			t.Errorf("%v.Latency() = %v", tt, tt.Latency())
		}
	}
	if Test(0).Valid() || Test(9).Valid() || Test(0).Program() != "" || Test(9).String() != "Test(9)" {
		t.Error("invalid tests are not reported as such")
	}
}

// TestArgvExact pins the command lines of the runbook.
func TestArgvExact(t *testing.T) {
	for _, c := range []struct {
		o              Options
		server, client string
	}{
		{
			Options{Test: SendBW, Server: End{Device: "rxe0", GIDIndex: new(3)}, Client: End{Device: "rxe0", GIDIndex: new(3)}, NoFreqCheck: true, Iterations: 10000, ReportGbits: true},
			"ib_send_bw -d rxe0 -x 3 -F -n 10000 --report_gbits -p 18515",
			"ib_send_bw -d rxe0 -x 3 -F -n 10000 --report_gbits -p 18515 198.18.80.1",
		},
		{
			Options{Test: WriteBW, Server: End{Device: "rxe0", IBPort: 1, GIDIndex: new(0), CPUs: []int{2, 3}}, Client: End{Device: "rxe1", IBPort: 2, GIDIndex: new(5), CPUs: []int{1}},
				Duration: 5 * time.Second, QPs: 4, Bidirectional: true, Connection: UC, MTU: 1024, TXDepth: 64, RXDepth: 32, InlineSize: 64, Port: 18600},
			"ib_write_bw -d rxe0 -i 1 -x 0 -c UC -D 5 -q 4 -m 1024 -b -t 64 -r 32 -I 64 -p 18600",
			"ib_write_bw -d rxe1 -i 2 -x 5 -c UC -D 5 -q 4 -m 1024 -b -t 64 -r 32 -I 64 -p 18600 198.18.80.1",
		},
		{
			Options{Test: ReadLat, AllSizes: true, RDMACM: true, JSON: true, JSONDir: "/run/x", Extra: []string{"-u", "16"}, Client: End{Extra: []string{"--output=latency"}}},
			"ib_read_lat -a -R -p 18515 -u 16 --out_json --out_json_file=/run/x/perftest-18515-server.json",
			"ib_read_lat -a -R -p 18515 -u 16 --output=latency --out_json --out_json_file=/run/x/perftest-18515-client.json 198.18.80.1",
		},
		{
			Options{Test: AtomicLat, Size: 8},
			"ib_atomic_lat -s 8 -p 18515",
			"ib_atomic_lat -s 8 -p 18515 198.18.80.1",
		},
	} {
		s, err := c.o.ServerArgv()
		if err != nil {
			t.Fatalf("%+v: %v", c.o, err)
		}
		cl, err := c.o.ClientArgv("198.18.80.1")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(s, " "); got != c.server {
			t.Errorf("server\n got %s\nwant %s", got, c.server)
		}
		if got := strings.Join(cl, " "); got != c.client {
			t.Errorf("client\n got %s\nwant %s", got, c.client)
		}
	}
}

// randomEnd draws an End over every field that reaches the command line.
func randomEnd(r *rand.Rand, extras ...[]string) End {
	pick := func(vals ...int) int { return vals[r.IntN(len(vals))] }
	e := End{Device: []string{"", "rxe0", "mlx5_0"}[r.IntN(3)], IBPort: pick(0, 1, 2)}
	if r.IntN(2) == 0 {
		e.GIDIndex = new(pick(0, 1, 3))
	}
	if r.IntN(3) == 0 {
		e.CPUs = [][]int{{0}, {1, 2}, {0, 1, 2, 3, 6}}[r.IntN(3)]
	}
	if len(extras) > 0 {
		e.Extra = extras[r.IntN(len(extras))]
	}
	return e
}

// randomOptions draws Options over every field that reaches the command
// line; many draws are invalid and are skipped by the caller. The ends
// draw their Extra from disjoint sets of one-side flags Options has no
// field for, so that reading the pair back is exact.
func randomOptions(r *rand.Rand) Options {
	pick := func(vals ...int) int { return vals[r.IntN(len(vals))] }
	o := Options{
		Test:          Tests()[r.IntN(8)],
		Server:        randomEnd(r, nil, []string{"-e"}, []string{"-l", "4"}),
		Client:        randomEnd(r, nil, []string{"--output=bandwidth"}, []string{"-S", "3"}, []string{"-N", "-Q", "8"}),
		Iterations:    pick(0, 0, 5, 200, 1000),
		Size:          pick(0, 0, 2, 8, 4096, 65536),
		AllSizes:      r.IntN(4) == 0,
		QPs:           pick(0, 1, 2, 8),
		Connection:    []string{"", RC, UC, UD}[r.IntN(4)],
		MTU:           pick(0, 1024, 4096),
		Bidirectional: r.IntN(3) == 0,
		ReportGbits:   r.IntN(2) == 0,
		Port:          pick(0, 18600),
		RDMACM:        r.IntN(4) == 0,
		TXDepth:       pick(0, 16),
		RXDepth:       pick(0, 32),
		InlineSize:    pick(0, 0, 64),
		QPTimeout:     pick(0, 0, 14, 22),
		NoFreqCheck:   r.IntN(2) == 0,
		JSON:          r.IntN(4) == 0,
	}
	if o.JSON && r.IntN(2) == 0 {
		o.JSONDir = "/run/rocekit"
	}
	if r.IntN(3) == 0 {
		o.Duration = time.Duration(pick(1, 2, 5)) * time.Second
	}
	if r.IntN(4) == 0 {
		o.Extra = [][]string{{"-T", "106"}, {"--cpu_util"}, {"-w", "10", "--no_enhanced_reorder"}}[r.IntN(3)]
	}
	if r.IntN(2) == 0 {
		o.Client = o.Server // one host, or two alike
	}
	return o
}

// TestArgvSymmetry is the property of Options: for every test kind and
// every valid combination, the server's argv is the client's without the
// server address, which is the client's last word, when both ends are
// alike; and no command line has a flag twice.
func TestArgvSymmetry(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	valid := map[Test]int{}
	for range 20000 {
		o := randomOptions(r)
		if o.Validate() != nil {
			continue
		}
		valid[o.Test]++
		s, err := o.ServerArgv()
		if err != nil {
			t.Fatal(err)
		}
		c, err := o.ClientArgv("198.18.80.1")
		if err != nil {
			t.Fatal(err)
		}
		same := reflect.DeepEqual(o.Server, o.Client) && !o.JSON // the JSON file names the role
		if c[len(c)-1] != "198.18.80.1" || same && !slices.Equal(s, c[:len(c)-1]) {
			t.Fatalf("%+v:\nserver %q\nclient %q", o, s, c)
		}
		if s[0] != o.Test.Program() {
			t.Fatalf("argv[0] %q for %v", s[0], o.Test)
		}
		// No flag twice (perftest 23.04+ refuses duplicates).
		seen := map[string]bool{}
		for _, a := range c {
			if n := flagName(a); n != "" {
				if seen[n] {
					t.Fatalf("%s twice in %q", n, c)
				}
				seen[n] = true
			}
		}
	}
	for _, tt := range Tests() {
		if valid[tt] < 50 {
			t.Errorf("%v: only %d valid draws", tt, valid[tt])
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     Options
		field string // "" means valid
	}{
		{"zero test", Options{}, "Test"},
		{"send bw defaults", Options{Test: SendBW}, ""},
		{"-D with -a", Options{Test: SendBW, Duration: 5 * time.Second, AllSizes: true}, "Duration"},
		{"-D with -n", Options{Test: WriteBW, Duration: 5 * time.Second, Iterations: 100}, "Duration"},
		{"-D fraction", Options{Test: WriteBW, Duration: 1500 * time.Millisecond}, "Duration"},
		{"-D negative", Options{Test: WriteBW, Duration: -time.Second}, "Duration"},
		{"-q on latency", Options{Test: SendLat, QPs: 2}, "QPs"},
		{"-q 1 on latency", Options{Test: SendLat, QPs: 1}, ""},
		{"-b on latency", Options{Test: WriteLat, Bidirectional: true}, "Bidirectional"},
		{"-b on bw", Options{Test: WriteBW, Bidirectional: true}, ""},
		{"negative size", Options{Test: SendBW, Size: -1}, "Size"},
		{"huge size", Options{Test: SendBW, Size: 1 << 31}, "Size"},
		{"-s with -a", Options{Test: SendBW, Size: 4096, AllSizes: true}, "Size"},
		{"atomic size", Options{Test: AtomicBW, Size: 64}, "Size"},
		{"atomic -a", Options{Test: AtomicLat, AllSizes: true}, "AllSizes"},
		{"atomic size 8", Options{Test: AtomicBW, Size: 8}, ""},
		{"-n 4", Options{Test: SendBW, Iterations: 4}, "Iterations"},
		{"negative iterations", Options{Test: SendBW, Iterations: -5}, "Iterations"},
		{"negative qps", Options{Test: SendBW, QPs: -1}, "QPs"},
		{"negative tx depth", Options{Test: SendBW, TXDepth: -1}, "TXDepth"},
		{"negative port", Options{Test: SendBW, Port: -1}, "Port"},
		{"port too big", Options{Test: SendBW, Port: 70000}, "Port"},
		{"mtu 1500", Options{Test: SendBW, MTU: 1500}, "MTU"},
		{"UD write", Options{Test: WriteBW, Connection: UD}, "Connection"},
		{"UC read", Options{Test: ReadLat, Connection: UC}, "Connection"},
		{"UC write", Options{Test: WriteLat, Connection: UC}, ""},
		{"XX", Options{Test: SendBW, Connection: "XX"}, "Connection"},
		{"UD size over MTU", Options{Test: SendBW, Connection: UD, MTU: 1024, Size: 4096}, "Size"},
		{"inline on read", Options{Test: ReadBW, InlineSize: 64}, "InlineSize"},
		{"inline too big", Options{Test: SendBW, InlineSize: 2048}, "InlineSize"},
		{"negative cpu", Options{Test: SendBW, Client: End{CPUs: []int{-1}}}, "Client.CPUs"},
		{"negative ib port", Options{Test: SendBW, Server: End{IBPort: -1}}, "Server.IBPort"},
		{"negative gid", Options{Test: SendBW, Server: End{GIDIndex: new(-1)}}, "Server.GIDIndex"},
		{"device as option", Options{Test: SendBW, Client: End{Device: "-x"}}, "Client.Device"},
		{"json dir with space", Options{Test: SendBW, JSON: true, JSONDir: "/a b"}, "JSONDir"},
		{"device with space", Options{Test: SendBW, Server: End{Device: "rxe 0"}}, "Server.Device"},
		{"extra repeats -n", Options{Test: SendBW, Iterations: 100, Extra: []string{"-n", "5"}}, "Extra"},
		{"extra repeats -p", Options{Test: SendBW, Extra: []string{"--port=1"}}, "Extra"},
		{"extra repeats -x", Options{Test: SendBW, Extra: []string{"-x", "1"}}, "Extra"},
		{"extra repeats -d", Options{Test: SendBW, Extra: []string{"-d", "rxe0"}}, "Extra"},
		{"extra -u unset", Options{Test: SendBW, Extra: []string{"-u", "16"}}, ""},
		{"server-only -s", Options{Test: SendBW, Server: End{Extra: []string{"-s", "4096"}}}, "Server.Extra"},
		{"client-only -n given", Options{Test: SendBW, Iterations: 100, Client: End{Extra: []string{"-n", "50"}}}, "Client.Extra"},
		{"client-only -x", Options{Test: SendBW, Client: End{GIDIndex: new(1), Extra: []string{"--gid-index=2"}}}, "Client.Extra"},
		{"client-only --report_gbits", Options{Test: SendBW, Client: End{Extra: []string{"--report_gbits"}}}, "Client.Extra"},
		{"client-only -u", Options{Test: SendBW, Client: End{Extra: []string{"-u", "20"}}}, ""},
		{"asymmetric allowed", Options{Test: SendBW, Server: End{Extra: []string{"-s", "4096"}}, AllowAsymmetric: true}, ""},
	} {
		err := c.o.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var oe *OptionsError
		if !errors.As(err, &oe) || oe.Field != c.field || !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: got %v, want an OptionsError on %s", c.name, err, c.field)
		}
	}
}

func TestArgvErrors(t *testing.T) {
	if _, err := (Options{Test: SendBW, Client: End{GIDIndex: new(-1)}}).ServerArgv(); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("negative GID: %v", err)
	}
	for _, addr := range []string{"", "-x", "a b"} {
		if _, err := (Options{Test: SendBW}).ClientArgv(addr); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("address %q: %v", addr, err)
		}
	}
	if _, err := (Options{Test: SendLat, QPs: 2}).ClientArgv("h"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("invalid options: %v", err)
	}
}

func TestDeadline(t *testing.T) {
	short := Options{Test: SendLat, Iterations: 200}.Deadline()
	long := Options{Test: SendLat, Iterations: 200, AllSizes: true}.Deadline()
	dur := Options{Test: SendBW, Duration: 5 * time.Second}.Deadline()
	if short < 30*time.Second || short > time.Minute {
		t.Errorf("200 latency iterations: %v", short)
	}
	if long <= short*2 {
		t.Errorf("-a %v not longer than one size %v", long, short)
	}
	if dur != 40*time.Second {
		t.Errorf("-D 5: %v", dur)
	}
	if d := (Options{Test: SendBW, Timeout: time.Second}).Deadline(); d != time.Second {
		t.Errorf("Timeout: %v", d)
	}
}

func TestQPTimeout(t *testing.T) {
	o := Options{Test: SendBW, QPTimeout: 22}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	argv, err := o.ClientArgv("198.18.0.2")
	if got := strings.Join(argv, " "); err != nil || !strings.Contains(got, " -u 22 ") {
		t.Errorf("argv %q (%v) has no -u 22", got, err)
	}
	o.QPTimeout = 32
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "31") {
		t.Errorf("-u 32: %v", err)
	}
}
