package perftest

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Flag is one perftest option: the Options field it comes from, how that
// field becomes arguments of a command line and how they are read back.
// The one table of them (Flags) builds every argv, reads argv back
// (ParseCommand, ParsePair), checks Extra flags and prints usage.
type Flag struct {
	// Short and Long are the option's names ("-n", "--iters"); either
	// may be "" (--report_gbits has no short form).
	Short, Long string
	// Prefix is set instead of the names for what comes before the
	// program rather than as one of its options ("taskset -c").
	Prefix string
	// Field is the Options field the option comes from ("Iterations"),
	// "End.Device" for a field of each End, or "" when Options has none:
	// give the option in Extra or End.Extra.
	Field string
	// Value says the option takes a value ("-n 5", "--iters=5").
	Value bool
	// Symmetric says both ends must give it, with the same value
	// (perftest -h marks them SYMMETRIC from 25.04).
	Symmetric bool
	// Usage says what it does.
	Usage string

	tail bool                                        // given after the Extra flags (--out_json)
	emit func(o *Options, role Role) []string        // the arguments of the field; nil: not given
	set  func(o *Options, role Role, v string) error // reads a value back into the field
	zero func(o *Options, role Role)                 // clears the field
	same func(a, b *Options) bool                    // whether two Options agree on it (shared fields)
	end  bool                                        // the field is one of each End
}

// modelled reports whether an Options field gives the option.
func (f Flag) modelled() bool { return f.emit != nil }

// Name returns the option as perftest's -h lists it: "-n, --iters",
// "--report_gbits", "taskset -c".
func (f Flag) Name() string {
	switch {
	case f.Prefix != "":
		return f.Prefix
	case f.Short != "" && f.Long != "":
		return f.Short + ", " + f.Long
	case f.Short != "":
		return f.Short
	}
	return f.Long
}

// errKeep makes a set keep the argument as an extra flag: a value the
// field cannot hold (an --out_json_file of another name).
var errKeep = fmt.Errorf("keep as extra")

// Constructors of the rows, over a pointer to the field.

func intFlag(short, long, field string, sym bool, usage string, p func(*Options) *int) Flag {
	return Flag{Short: short, Long: long, Field: field, Value: true, Symmetric: sym, Usage: usage,
		emit: func(o *Options, _ Role) []string {
			if v := *p(o); v > 0 {
				return []string{short, strconv.Itoa(v)}
			}
			return nil
		},
		set: func(o *Options, _ Role, v string) error {
			n, err := strconv.Atoi(v)
			*p(o) = n
			return err
		},
		zero: func(o *Options, _ Role) { *p(o) = 0 },
		same: func(a, b *Options) bool { return *p(a) == *p(b) },
	}
}

func boolFlag(name, long, field string, sym bool, usage string, p func(*Options) *bool) Flag {
	f := Flag{Short: name, Long: long, Field: field, Symmetric: sym, Usage: usage,
		emit: func(o *Options, _ Role) []string {
			if *p(o) {
				return []string{name}
			}
			return nil
		},
		set:  func(o *Options, _ Role, _ string) error { *p(o) = true; return nil },
		zero: func(o *Options, _ Role) { *p(o) = false },
		same: func(a, b *Options) bool { return *p(a) == *p(b) },
	}
	if !strings.HasPrefix(name, "--") {
		return f
	}
	f.Short, f.Long = "", name // a long-only option
	return f
}

// other is an option Options has no field for.
func other(short, long string, value, sym bool, usage string) Flag {
	return Flag{Short: short, Long: long, Value: value, Symmetric: sym, Usage: usage}
}

// flagTable is the one table of perftest's options. The rows with a Field
// come first, in the order they appear on a command line; the Extra flags
// follow them, then the tail rows (--out_json), then the client's server
// address.
var flagTable = []Flag{
	{Prefix: "program", Field: "Test", Usage: "argv[0]: ib_send_bw, ib_write_bw, ..., ib_atomic_lat"},
	{Short: "-d", Long: "--ib-dev", Field: "End.Device", Value: true, end: true,
		Usage: "the RDMA device; default: the first one",
		emit: func(o *Options, r Role) []string {
			if d := o.End(r).Device; d != "" {
				return []string{"-d", d}
			}
			return nil
		},
		set:  func(o *Options, r Role, v string) error { o.endOf(r).Device = v; return nil },
		zero: func(o *Options, r Role) { o.endOf(r).Device = "" }},
	{Short: "-i", Long: "--ib-port", Field: "End.IBPort", Value: true, end: true,
		Usage: "the device port (not the GID index); default 1",
		emit: func(o *Options, r Role) []string {
			if p := o.End(r).IBPort; p > 0 {
				return []string{"-i", strconv.Itoa(p)}
			}
			return nil
		},
		set: func(o *Options, r Role, v string) error {
			n, err := strconv.Atoi(v)
			o.endOf(r).IBPort = n
			return err
		},
		zero: func(o *Options, r Role) { o.endOf(r).IBPort = 0 }},
	{Short: "-x", Long: "--gid-index", Field: "End.GIDIndex", Value: true, end: true,
		Usage: "the GID index; default: perftest's choice",
		emit: func(o *Options, r Role) []string {
			if g := o.End(r).gid(); g >= 0 {
				return []string{"-x", strconv.Itoa(g)}
			}
			return nil
		},
		set: func(o *Options, r Role, v string) error {
			n, err := strconv.Atoi(v)
			o.endOf(r).GIDIndex = &n
			return err
		},
		zero: func(o *Options, r Role) { o.endOf(r).GIDIndex = nil }},
	boolFlag("-F", "--CPU-freq", "NoFreqCheck", false, "do not warn (or fail) when the CPU frequency cannot be trusted", func(o *Options) *bool { return &o.NoFreqCheck }),
	{Short: "-c", Long: "--connection", Field: "Connection", Value: true, Symmetric: true,
		Usage: "the connection type: RC (default), UC, UD",
		emit: func(o *Options, _ Role) []string {
			if o.Connection != "" {
				return []string{"-c", o.Connection}
			}
			return nil
		},
		set:  func(o *Options, _ Role, v string) error { o.Connection = v; return nil },
		zero: func(o *Options, _ Role) { o.Connection = "" },
		same: func(a, b *Options) bool { return a.Connection == b.Connection }},
	boolFlag("-a", "--all", "AllSizes", true, "every message size from 2 to 2^23", func(o *Options) *bool { return &o.AllSizes }),
	{Short: "-s", Long: "--size", Field: "Size", Value: true, Symmetric: true,
		Usage: "the message size in bytes (K and M suffixes read back)",
		emit: func(o *Options, _ Role) []string {
			if o.Size > 0 {
				return []string{"-s", strconv.Itoa(o.Size)}
			}
			return nil
		},
		set: func(o *Options, _ Role, v string) error {
			n, err := parseSize(v)
			o.Size = n
			return err
		},
		zero: func(o *Options, _ Role) { o.Size = 0 },
		same: func(a, b *Options) bool { return a.Size == b.Size }},
	intFlag("-n", "--iters", "Iterations", true, "the number of iterations (at least 5)", func(o *Options) *int { return &o.Iterations }),
	{Short: "-D", Long: "--duration", Field: "Duration", Value: true, Symmetric: true,
		Usage: "run for this many seconds instead of -n",
		emit: func(o *Options, _ Role) []string {
			if o.Duration > 0 {
				return []string{"-D", strconv.Itoa(int(o.Duration / time.Second))}
			}
			return nil
		},
		set: func(o *Options, _ Role, v string) error {
			n, err := strconv.Atoi(v)
			o.Duration = time.Duration(n) * time.Second
			return err
		},
		zero: func(o *Options, _ Role) { o.Duration = 0 },
		same: func(a, b *Options) bool { return a.Duration == b.Duration }},
	intFlag("-q", "--qp", "QPs", true, "the number of QPs, BW tests only", func(o *Options) *int { return &o.QPs }),
	intFlag("-m", "--mtu", "MTU", true, "the RDMA MTU: 256 to 4096; default: the port's active MTU", func(o *Options) *int { return &o.MTU }),
	boolFlag("-b", "--bidirectional", "Bidirectional", true, "traffic both ways, BW tests only", func(o *Options) *bool { return &o.Bidirectional }),
	intFlag("-t", "--tx-depth", "TXDepth", false, "the send queue depth", func(o *Options) *int { return &o.TXDepth }),
	intFlag("-r", "--rx-depth", "RXDepth", false, "the receive queue depth", func(o *Options) *int { return &o.RXDepth }),
	intFlag("-I", "--inline_size", "InlineSize", false, "the inline data size, send and write tests", func(o *Options) *int { return &o.InlineSize }),
	intFlag("-u", "--qp-timeout", "QPTimeout", false, "the QP timeout exponent: 4.096 µs × 2^N; default 14", func(o *Options) *int { return &o.QPTimeout }),
	boolFlag("-R", "--rdma_cm", "RDMACM", true, "connect the QPs with rdma_cm", func(o *Options) *bool { return &o.RDMACM }),
	boolFlag("--report_gbits", "", "ReportGbits", true, "BW in 10^9 bit/s instead of MiB/s", func(o *Options) *bool { return &o.ReportGbits }),
	{Short: "-p", Long: "--port", Field: "Port", Value: true, Symmetric: true,
		Usage: "the out-of-band TCP port; always given, default 18515",
		emit:  func(o *Options, _ Role) []string { return []string{"-p", strconv.Itoa(o.port())} },
		set: func(o *Options, _ Role, v string) error {
			n, err := strconv.Atoi(v)
			o.Port = n
			return err
		},
		zero: func(o *Options, _ Role) { o.Port = 0 },
		same: func(a, b *Options) bool { return a.port() == b.port() }},
	{Long: "--out_json", Field: "JSON", tail: true,
		Usage: "write the results as JSON too (RunPair reads the file back)",
		emit: func(o *Options, _ Role) []string {
			if o.JSON {
				return []string{"--out_json"}
			}
			return nil
		},
		// Read back with the file: --out_json alone writes
		// perftest_out.json in the working folder, which JSONDir cannot
		// say, so it stays an extra flag unless the file is JSONFile's.
		set:  func(*Options, Role, string) error { return errKeep },
		zero: func(o *Options, _ Role) { o.JSON = false },
		same: func(a, b *Options) bool { return a.JSON == b.JSON }},
	{Long: "--out_json_file", Field: "JSONDir", Value: true, tail: true,
		Usage: "the JSON file: JSONDir/perftest-PORT-ROLE.json",
		emit: func(o *Options, r Role) []string {
			if o.JSON {
				return []string{"--out_json_file=" + o.JSONFile(r)}
			}
			return nil
		},
		set:  setJSONFile,
		zero: func(o *Options, _ Role) { o.JSONDir = "" },
		same: func(a, b *Options) bool { return a.JSON == b.JSON && a.jsonDir() == b.jsonDir() }},
	{Prefix: "taskset -c", Field: "End.CPUs", end: true,
		Usage: "pin the end to these CPUs (host.Cmd.CPUs: a bound thread locally, taskset over SSH)"},

	// Options perftest has that Options does not model: give them in
	// Extra (both ends) or End.Extra (one end).
	other("-A", "--atomic_type", true, true, "the atomic operation: CMP_AND_SWAP or FETCH_AND_ADD"),
	other("-f", "--margin", true, true, "the margin in seconds of -D"),
	other("-g", "--mcg", false, true, "send to a multicast group (a value before perftest 4.x)"),
	other("-O", "--dualport", false, true, "run in dual-port mode"),
	other("-z", "--comm_rdma_cm", false, true, "exchange the parameters over rdma_cm"),
	other("", "--reversed", false, true, "reverse the traffic direction"),
	other("", "--run_infinitely", false, true, "run until stopped, a row every -D seconds (RunSoak)"),
	other("", "--ipv6-addr", false, true, "negotiate the parameters over IPv6"),
	other("", "--no_enhanced_reorder", false, true, "do not use enhanced reorder"),
	other("", "--write_with_imm", false, true, "RDMA write with immediate"),
	other("", "--data_validation", false, true, "validate the data received"),
	other("-S", "--sl", true, false, "the service level"),
	other("-Q", "--cq-mod", true, false, "completions per CQ event"),
	other("-T", "--tos", true, false, "the type of service"),
	other("-L", "--hop_limit", true, false, "the hop limit"),
	other("-l", "--post_list", true, false, "post lists of this many WQEs"),
	other("-w", "--limit_bw", true, false, "the bandwidth limit"),
	other("-y", "--limit_msgrate", true, false, "the message rate limit"),
	other("-o", "--outs", true, false, "outstanding reads or atomics"),
	other("-X", "--vector", true, false, "the completion vector (-e)"),
	other("-M", "--MGID", true, false, "the multicast GID"),
	other("-W", "--report-counters", true, false, "report these device counters"),
	other("-B", "--source_mac", true, false, "the source MAC (raw Ethernet)"),
	other("-E", "--dest_mac", true, false, "the destination MAC (raw Ethernet)"),
	other("-J", "--dest_ip", true, false, "the destination IP (raw Ethernet)"),
	other("-j", "--source_ip", true, false, "the source IP (raw Ethernet)"),
	other("-K", "--dest_port", true, false, "the destination UDP port (raw Ethernet)"),
	other("-k", "--source_port", true, false, "the source UDP port (raw Ethernet)"),
	other("-Y", "--ethertype", true, false, "the ethertype (raw Ethernet)"),
	other("-e", "--events", false, false, "sleep on CQ events instead of polling"),
	other("-N", "--noPeak", false, false, "do not measure the peak BW"),
	other("-C", "--report-cycles", false, false, "latency in CPU cycles"),
	other("-H", "--report-histogrm", false, false, "print the latency histogram (perftest's spelling)"),
	other("-U", "--report-unsorted", false, false, "print the unsorted latencies"),
	other("-V", "--version", false, false, "print perftest's version"),
	other("-h", "--help", false, false, "print perftest's usage"),
	other("", "--output", true, false, "print only one number: bandwidth, message_rate or latency"),
	other("", "--cpu_util", false, false, "report the CPU utilisation (-D only)"),
	other("", "--report-both", false, false, "with -b, print the local and remote results"),
	other("", "--report-per-port", false, false, "with -O and -D, a row per port"),
	other("", "--bind_source_ip", true, false, "bind the out-of-band socket to this address"),
	other("", "--use-srq", false, false, "use a shared receive queue"),
	other("", "--ipv6", false, false, "use an IPv6 GID"),
	other("", "--odp", false, false, "use on-demand paging"),
	other("", "--use_hugepages", false, false, "allocate the buffers on huge pages"),
	other("", "--mr_per_qp", false, false, "one memory region per QP"),
	other("", "--perform_warm_up", false, false, "warm up before the measurement"),
	other("", "--dont_xchg_versions", false, false, "do not exchange the versions"),
	other("", "--tclass", true, false, "the traffic class"),
	other("", "--flow_label", true, false, "the flow label"),
	other("", "--retry_count", true, false, "the RC retry count"),
	other("", "--pkey_index", true, false, "the P_Key index"),
	other("", "--inline_recv", true, false, "the inline receive size"),
	other("", "--rate_limit", true, false, "the rate limit"),
	other("", "--rate_limit_type", true, false, "how the rate is limited: SW, HW, PP"),
	other("", "--rate_units", true, false, "the rate limit's units"),
	other("", "--burst_size", true, false, "the burst size of the rate limiter"),
	other("", "--typical_pkt_size", true, false, "the typical packet size of the rate limiter"),
	other("", "--latency_gap", true, false, "the gap between latency samples"),
	other("", "--wait_destroy", true, false, "wait this many seconds before teardown"),
	other("", "--mmap", true, false, "map this file as the buffer"),
	other("", "--mmap-offset", true, false, "the offset in --mmap's file"),
}

// flagIndex maps every name of the table to its row.
var flagIndex = func() map[string]int {
	m := map[string]int{}
	for i, f := range flagTable {
		for _, n := range []string{f.Short, f.Long} {
			if n != "" {
				m[n] = i
			}
		}
	}
	return m
}()

// Flags returns the table of perftest's options rocekit knows, the rows
// with an Options field first, in command-line order.
func Flags() []Flag { return slices.Clone(flagTable) }

// WriteUsage prints the table: each option, its value, the Options field
// it comes from and whether both ends must give it.
//
// Similar to: ib_send_bw -h
func WriteUsage(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "option\tvalue\tfield\tboth ends\tmeaning")
	for _, f := range flagTable {
		val, field, sym := "", f.Field, ""
		if f.Value {
			val = "N"
		}
		if f.Prefix != "" {
			val = "LIST"
		}
		if field == "" {
			field = "(Extra)"
		}
		if f.Symmetric {
			sym = "same"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name(), val, field, sym, f.Usage)
	}
	return tw.Flush()
}

// lookupFlag returns the row of an argument ("-n", "--iters=5", "-n300",
// and, as getopt_long takes them, unambiguous prefixes of long options:
// "--report_gbit").
func lookupFlag(arg string) (Flag, bool) {
	name := rawFlagName(arg)
	if i, ok := flagIndex[name]; ok {
		return flagTable[i], true
	}
	if !strings.HasPrefix(name, "--") || len(name) < 3 {
		return Flag{}, false
	}
	found := -1
	for i, f := range flagTable {
		if strings.HasPrefix(f.Long, name) {
			if found >= 0 {
				return Flag{}, false // ambiguous: perftest refuses it too
			}
			found = i
		}
	}
	if found < 0 {
		return Flag{}, false
	}
	return flagTable[found], true
}

// flagName returns the option name of an argument, long options as their
// short form: "-n" of "-n" and "--iters=5", "--report_gbits"; "" for a
// value.
func flagName(arg string) string {
	n := rawFlagName(arg)
	if f, ok := lookupFlag(arg); ok && f.Short != "" {
		return f.Short
	}
	return n
}

func rawFlagName(arg string) string {
	if !strings.HasPrefix(arg, "-") || len(arg) < 2 {
		return ""
	}
	if _, err := strconv.ParseFloat(arg, 64); err == nil {
		return "" // a negative number is a value
	}
	if name, _, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "--") {
		return name
	}
	if !strings.HasPrefix(arg, "--") && len(arg) > 2 {
		return arg[:2] // "-n300"
	}
	return arg
}

// argv builds one side's command line from the table. The client gets
// serverAddr last.
func (o Options) argv(role Role, serverAddr string) []string {
	a := []string{o.Test.Program()}
	var tail []string
	for _, f := range flagTable {
		if f.emit == nil {
			continue
		}
		if f.tail {
			tail = append(tail, f.emit(&o, role)...)
		} else {
			a = append(a, f.emit(&o, role)...)
		}
	}
	a = append(a, o.Extra...)
	a = append(a, o.End(role).Extra...)
	a = append(a, tail...)
	if role == Client {
		a = append(a, serverAddr)
	}
	return a
}

// jsonDir is JSONDir with its default.
func (o Options) jsonDir() string {
	if o.JSONDir == "" {
		return "/tmp"
	}
	return strings.TrimSuffix(o.JSONDir, "/")
}

// setJSONFile reads --out_json_file back into JSONDir when the file is
// named as JSONFile names it; another file stays an extra flag.
func setJSONFile(o *Options, role Role, v string) error {
	dir, file := "", v
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		dir, file = v[:i], v[i+1:]
	}
	port, ok := strings.CutPrefix(file, "perftest-")
	if !ok {
		return errKeep
	}
	port, ok = strings.CutSuffix(port, "-"+string(role)+".json")
	if _, err := strconv.Atoi(port); !ok || err != nil || dir == "" {
		return errKeep
	}
	o.JSON, o.JSONDir = true, dir
	if dir == "/tmp" {
		o.JSONDir = ""
	}
	return nil
}

// parseSize reads -s as perftest does: a number of bytes with an optional
// K or M suffix (powers of 2).
func parseSize(v string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(v, "K") || strings.HasSuffix(v, "k"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "M") || strings.HasSuffix(v, "m"):
		mult, v = 1<<20, v[:len(v)-1]
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxSize/mult {
		return 0, fmt.Errorf("size %q", v)
	}
	return n * mult, nil
}
