package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runFields are the fields that configure RunPair, not perftest: they
// have no option in the table.
var runFields = []string{"Server", "Client", "Extra", "AllowAsymmetric", "Timeout", "ServerGrace", "ClientGrace", "End.Extra"}

// TestFlagsCoverEveryField: every field of Options and End has its row in
// the one table (or is one of RunPair's own), and every row names a field
// that exists. A new field without a row fails here.
func TestFlagsCoverEveryField(t *testing.T) {
	rows := map[string]bool{}
	for _, f := range Flags() {
		if f.Field != "" {
			rows[f.Field] = true
		}
	}
	fields := map[string]bool{}
	for prefix, typ := range map[string]reflect.Type{"": reflect.TypeFor[Options](), "End.": reflect.TypeFor[End]()} {
		for sf := range typ.Fields() {
			name := prefix + sf.Name
			fields[name] = true
			if !rows[name] && !slices.Contains(runFields, name) {
				t.Errorf("%s has no row in the flag table", name)
			}
			if rows[name] && slices.Contains(runFields, name) {
				t.Errorf("%s is both a flag and one of RunPair's fields", name)
			}
		}
	}
	for name := range rows {
		if !fields[name] {
			t.Errorf("the row of %s names no field", name)
		}
	}
	// Names are unique, and every modelled row can be written and read.
	seen := map[string]bool{}
	for _, f := range Flags() {
		for _, n := range []string{f.Short, f.Long} {
			if n != "" && seen[n] {
				t.Errorf("%s twice in the table", n)
			}
			seen[n] = true
		}
		if f.Field != "" && f.Prefix == "" && (f.emit == nil || f.set == nil || f.zero == nil || f.same == nil && !f.end) {
			t.Errorf("%s (%s) cannot be both written and read back", f.Name(), f.Field)
		}
	}
}

// TestOptionsRoundTrip: Options -> argv -> Options is exact on many
// generated option sets (the port and JSON folder with their defaults,
// RunPair's own fields left out), and argv -> Options -> argv is a fixed
// point on every one, also where Extra gives a flag Options has a field
// for.
func TestOptionsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 0
	for range 20000 {
		o := randomOptions(r)
		if o.Validate() != nil {
			continue
		}
		n++
		srv, cli := o.commandLine(t, Server), o.commandLine(t, Client)
		got, addr, err := ParsePair(srv, cli)
		if err != nil || addr != "198.18.80.1" {
			t.Fatalf("%q\n%q\nread back: %v, address %q", srv, cli, err, addr)
		}
		if want := normalized(o); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q\n%q\n got %+v\nwant %+v", srv, cli, got, want)
		}
		if s2, c2 := got.commandLine(t, Server), got.commandLine(t, Client); !slices.Equal(s2, srv) || !slices.Equal(c2, cli) {
			t.Fatalf("argv not a fixed point:\n%q\n%q", s2, c2)
		}
	}
	if n < 2000 {
		t.Errorf("only %d valid draws", n)
	}
	// A flag with a field given in Extra or one End's Extra: the argv
	// is a fixed point and the field reads back.
	o := Options{Test: SendBW, Extra: []string{"-u", "16"}, Client: End{Extra: []string{"-t", "64"}}}
	got, _, err := ParsePair(o.commandLine(t, Server), o.commandLine(t, Client))
	if err != nil || got.QPTimeout != 16 || got.TXDepth != 0 || !slices.Equal(got.Client.Extra, []string{"-t", "64"}) || got.Extra != nil {
		t.Errorf("read back %+v, %v", got, err)
	}
}

// commandLine is a side's command line as a shell would run it: the
// argv with its CPUs as a taskset prefix.
func (o Options) commandLine(t *testing.T, role Role) []string {
	t.Helper()
	a, err := o.ServerArgv()
	if role == Client {
		a, err = o.ClientArgv("198.18.80.1")
	}
	if err != nil {
		t.Fatal(err)
	}
	if cpus := o.CPUs(role); len(cpus) > 0 {
		a = append([]string{"taskset", "-c", cpuList(cpus)}, a...)
	}
	return a
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// normalized is o as a command line says it: the port and JSON folder
// given, RunPair's own fields dropped, empty lists nil, the same flags of
// both ends shared.
func normalized(o Options) Options {
	o.Port = o.port()
	if !o.JSON || o.JSONDir == "/tmp" {
		o.JSONDir = ""
	}
	o.Timeout, o.ServerGrace, o.ClientGrace, o.AllowAsymmetric = 0, 0, 0, false
	for _, e := range []*End{&o.Server, &o.Client} {
		e.Extra = rest(e.Extra)
		e.CPUs = slices.Clip(e.CPUs)
		if len(e.CPUs) == 0 {
			e.CPUs = nil
		}
	}
	// Flags both ends give, one after the shared ones, are shared ones
	// on the command line.
	if len(o.Server.Extra) > 0 && slices.Equal(o.Server.Extra, o.Client.Extra) {
		o.Extra = append(slices.Clone(o.Extra), o.Server.Extra...)
		o.Server.Extra, o.Client.Extra = nil, nil
	}
	o.Extra = rest(o.Extra)
	return o
}

// TestParseCommandCaptures reads back every command line the lab
// captured (rocekittest/captures: what RunPair ran on bookworm and
// trixie): each pair reads back, and builds the same command lines again.
func TestParseCommandCaptures(t *testing.T) {
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/case.json")
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Sides []struct{ Role, Command string }
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		cmd := map[string][]string{}
		for _, s := range c.Sides {
			cmd[s.Role] = strings.Fields(s.Command)
		}
		if cmd["server"] == nil || cmd["client"] == nil || cmd["server"][0] == "timeout" {
			continue // "timeout -s INT 17 ib_write_bw": the capture's own stop
		}
		o, addr, err := ParsePair(cmd["server"], cmd["client"])
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		// Built again: the same words (in the table's order), and they
		// read back as the same Options.
		s, err1 := o.ServerArgv()
		cl, err2 := o.ClientArgv(addr)
		if err1 != nil || err2 != nil || !sameWords(s, cmd["server"]) || !sameWords(cl, cmd["client"]) {
			t.Errorf("%s: built again as\n%q\n%q (%v, %v)", file, s, cl, err1, err2)
		}
		if again, _, err := ParsePair(s, cl); err != nil || !reflect.DeepEqual(again, o) {
			t.Errorf("%s: read back again as %+v, %v", file, again, err)
		}
		if o.Server.Device == "" || o.Server.gid() < 0 || !o.NoFreqCheck || o.Port == 0 {
			t.Errorf("%s: read back %+v", file, o)
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d captured pairs", n)
	}
}

// sameWords reports whether two command lines hold the same words.
func sameWords(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestParseCommandRealWorld reads command lines from public bug reports
// and guides (testdata/realworld/perftest/*/source.json).
func TestParseCommandRealWorld(t *testing.T) {
	for _, c := range []struct {
		argv string
		want Command
	}{
		{"taskset -c 17 ib_send_bw -d mlx5_bond_0 -z -f 2 -F --report_gbits -D 205200 -p 20003 -x 3 192.168.219.6", Command{Role: Client, ServerAddr: "192.168.219.6",
			Options: Options{Test: SendBW, NoFreqCheck: true, ReportGbits: true, Duration: 205200 * time.Second, Port: 20003,
				Client: End{Device: "mlx5_bond_0", GIDIndex: new(3), CPUs: []int{17}, Extra: []string{"-z", "-f", "2"}}}}},
		{"ib_write_bw -d bnxt_re0 -i 1 -F -R -D 10 --report_gbits -q 3 10.0.0.10", Command{Role: Client, ServerAddr: "10.0.0.10",
			Options: Options{Test: WriteBW, NoFreqCheck: true, RDMACM: true, Duration: 10 * time.Second, ReportGbits: true, QPs: 3, Client: End{Device: "bnxt_re0", IBPort: 1}}}},
		// getopt lets the address come first, or before an option.
		{"ib_read_bw  cn2  -a -F -d mlx5_1", Command{Role: Client, ServerAddr: "cn2", Options: Options{Test: ReadBW, AllSizes: true, NoFreqCheck: true, Client: End{Device: "mlx5_1"}}}},
		{"ib_write_bw -d siw_0 10.1.0.1 -R", Command{Role: Client, ServerAddr: "10.1.0.1", Options: Options{Test: WriteBW, RDMACM: true, Client: End{Device: "siw_0"}}}},
		{"ib_read_lat -d mlx4_0", Command{Role: Server, Options: Options{Test: ReadLat, Server: End{Device: "mlx4_0"}}}},
		{"ib_atomic_bw -d pib_1 -A CMP_AND_SWAP localhost", Command{Role: Client, ServerAddr: "localhost",
			Options: Options{Test: AtomicBW, Client: End{Device: "pib_1", Extra: []string{"-A", "CMP_AND_SWAP"}}}}},
		{"ib_write_bw -D 10 -d mlx5_0", Command{Role: Server, Options: Options{Test: WriteBW, Duration: 10 * time.Second, Server: End{Device: "mlx5_0"}}}},
		// getopt_long takes unambiguous prefixes of long options
		// (perftest reference §6: "--report_gbit works").
		{"ib_send_bw --report_gbit --ite=300 --ib-d rxe0 --out 198.18.0.1", Command{Role: Client, ServerAddr: "198.18.0.1",
			Options: Options{Test: SendBW, ReportGbits: true, Iterations: 300, Client: End{Device: "rxe0", Extra: []string{"--out"}}}}},
		{"ib_read_bw -d hns_2 -n 5 192.168.10.110", Command{Role: Client, ServerAddr: "192.168.10.110", Options: Options{Test: ReadBW, Iterations: 5, Client: End{Device: "hns_2"}}}},
	} {
		got, err := ParseCommand(strings.Fields(c.argv))
		if err != nil {
			t.Errorf("%s: %v", c.argv, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.argv, got, c.want)
		}
	}
}

// TestParseCommandErrors: what cannot be read is a *CommandError naming
// the argument, and the rest is kept.
func TestParseCommandErrors(t *testing.T) {
	for _, c := range []struct {
		argv, arg string
		role      Role
	}{
		{"raw_ethernet_lat -d mlx5_1 -E ec:0d:9a:65:dc:e5 -B ec:0d:9a:c1:ba:61 --server", "raw_ethernet_lat", Server},
		{"ib_send_bw -n many 198.18.0.1", "-n", Client},
		{"ib_send_bw -s 4G", "-s", Server},
		{"ib_send_bw -d", "-d", Server},
		{"taskset -c x ib_send_bw", "taskset -c x", Server},
		{"taskset 0x3 ib_send_bw", "taskset", Server},
		{"", "", Server},
	} {
		got, err := ParseCommand(strings.Fields(c.argv))
		var ce *CommandError
		if !errors.As(err, &ce) || ce.Arg != c.arg || !errors.Is(err, ErrCommand) {
			t.Errorf("%q: err %v, want a CommandError on %q", c.argv, err, c.arg)
		}
		if got.Role != c.role {
			t.Errorf("%q: role %s", c.argv, got.Role)
		}
	}
	// The rest is kept: the device of a line whose -n is wrong.
	got, _ := ParseCommand(strings.Fields("ib_send_bw -d rxe0 -n many 198.18.0.1"))
	if got.Options.Client.Device != "rxe0" || got.ServerAddr != "198.18.0.1" {
		t.Errorf("partial result %+v", got)
	}
	// Two command lines of different tests, or two servers, are no pair.
	if _, _, err := ParsePair([]string{"ib_send_bw"}, []string{"ib_write_bw", "h"}); !errors.Is(err, ErrCommand) {
		t.Errorf("different tests: %v", err)
	}
	if _, _, err := ParsePair([]string{"ib_send_bw"}, []string{"ib_send_bw"}); !errors.Is(err, ErrCommand) {
		t.Errorf("two servers: %v", err)
	}
	if _, _, err := ParsePair(strings.Fields("ib_send_bw -p 18515"), strings.Fields("ib_send_bw -p 18600 h")); !errors.Is(err, ErrCommand) || !strings.Contains(err.Error(), "18600") {
		t.Errorf("two ports: %v", err)
	}
}

// TestParsePairAsymmetric: a field the two sides gave differently goes
// into each End's Extra as given, AllowAsymmetric when perftest needs it
// symmetric.
func TestParsePairAsymmetric(t *testing.T) {
	o, _, err := ParsePair(strings.Fields("ib_send_bw -d rxe0 -s 65536 -u 22 -p 18515"), strings.Fields("ib_send_bw -d rxe1 -s 4096 -p 18515 h"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 0 || o.QPTimeout != 0 || !o.AllowAsymmetric ||
		!slices.Equal(o.Server.Extra, []string{"-s", "65536", "-u", "22"}) || !slices.Equal(o.Client.Extra, []string{"-s", "4096"}) {
		t.Errorf("read back %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("the read-back mismatched pair does not validate: %v", err)
	}
}

// TestWriteUsage: the usage lists every row with its field.
func TestWriteUsage(t *testing.T) {
	var b bytes.Buffer
	if err := WriteUsage(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"-n, --iters", "Iterations", "-x, --gid-index", "End.GIDIndex", "taskset -c", "--report_gbits", "--output", "(Extra)"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage has no %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines != len(Flags())+1 {
		t.Errorf("%d lines for %d rows", lines, len(Flags()))
	}
}

// TestOptionsJSON: Options marshal with the test as its program and read
// back equal (a round records them so).
func TestOptionsJSON(t *testing.T) {
	o := Options{Test: WriteLat, Server: End{Device: "rxe0", GIDIndex: new(0), CPUs: []int{2}}, Client: End{Device: "mlx5_0", GIDIndex: new(3)},
		Size: 64, Iterations: 1000, QPTimeout: 22, Duration: 0, Extra: []string{"-e"}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"test":"ib_write_lat"`) || !strings.Contains(string(b), `"gid_index":0`) {
		t.Errorf("JSON %s", b)
	}
	var back Options
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, o) {
		t.Errorf("read back %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"test":"ib_foo"}`), &back); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("unknown test: %v", err)
	}
}

// FuzzParseCommand: no command line makes the reader panic, a client
// always has its address, and what reads back without error builds a
// command line that reads back the same.
func FuzzParseCommand(f *testing.F) {
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/case.json")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		var c struct{ Sides []struct{ Command string } }
		if json.Unmarshal(b, &c) == nil {
			for _, s := range c.Sides {
				f.Add(s.Command)
			}
		}
	}
	f.Add("taskset -c 17 ib_send_bw -d mlx5_bond_0 -z -f 2 -F --report_gbits -D 205200 -p 20003 -x 3 192.168.219.6")
	f.Add("ib_read_bw  cn2  -a -F -d mlx5_1")
	f.Add("ib_read_lat -a -R -p 18515 -u 16 --output=latency --out_json --out_json_file=/run/x/perftest-18515-client.json 198.18.80.1")
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseCommand(strings.Fields(line))
		if c.Role == Client && c.ServerAddr == "" {
			t.Fatalf("%q: a client without an address", line)
		}
		if err != nil || c.Options.Validate() != nil || checkAddr(c.ServerAddr) != nil && c.Role == Client {
			return
		}
		a := c.Options.argv(c.Role, c.ServerAddr)
		again, err := ParseArgs(a[1:])
		if err != nil {
			t.Fatalf("%q built %q, which does not read back: %v", line, a, err)
		}
		again.Options.Test = c.Options.Test
		again.Options.endOf(c.Role).CPUs = c.Options.End(c.Role).CPUs
		if b := again.Options.argv(again.Role, again.ServerAddr); !slices.Equal(a, b) {
			t.Fatalf("%q: %q reads back as %q", line, a, b)
		}
	})
}

// BenchmarkArgvParsePair: both command lines built from the table and read
// back, per pair (what a store of old rounds costs to read).
func BenchmarkArgvParsePair(b *testing.B) {
	o := Options{Test: WriteBW, Server: End{Device: "mlx5_0", GIDIndex: new(3), CPUs: []int{2}}, Client: End{Device: "mlx5_1", GIDIndex: new(1), Extra: []string{"-l", "4"}},
		Iterations: 5000, QPs: 4, QPTimeout: 22, ReportGbits: true, NoFreqCheck: true, Port: 18600}
	srv, _ := o.ServerArgv()
	cli, _ := o.ClientArgv("198.18.0.2")
	b.SetBytes(int64(len(strings.Join(srv, " ")) + len(strings.Join(cli, " "))))
	b.ReportAllocs()
	for b.Loop() {
		s := o.argv(Server, "")
		c := o.argv(Client, "198.18.0.2")
		if _, _, err := ParsePair(s, c); err != nil {
			b.Fatal(err)
		}
	}
}
