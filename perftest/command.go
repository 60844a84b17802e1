package perftest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrCommand is wrapped by every *CommandError: a command line that Flags
// cannot read back into Options.
var ErrCommand = errors.New("perftest: cannot read the command line")

// CommandError names the argument that could not be read and why.
type CommandError struct {
	Arg string // the argument: "-n", "ib_foo_bw"
	Msg string // what is wrong with it
}

// Error returns "perftest: cannot read the command line: ARG: why".
func (e *CommandError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrCommand, e.Arg, e.Msg)
}

// Unwrap returns ErrCommand.
func (e *CommandError) Unwrap() error { return ErrCommand }

// Command is one side's perftest command line read back with Flags.
type Command struct {
	// Role is Client when the command line ends with the server's
	// address, a word that is neither an option nor an option's value;
	// Server otherwise.
	Role Role
	// ServerAddr is that address ("" for a server).
	ServerAddr string
	// Options hold the test, the shared fields and the End of Role;
	// options Options has no field for (and values a field cannot hold)
	// are in that End's Extra, as given.
	Options Options
}

// ParseCommand reads a perftest command line back into Options, through
// the wrappers a framework puts in front of it: "taskset -c LIST" (into
// the End's CPUs). The program must be one of the eight tests. On error
// the Command holds what could be read (the role always).
//
// Similar to: reading "ps -o args" of a running ib_send_bw.
func ParseCommand(argv []string) (Command, error) {
	var cpus []int
	var errs []error
	if len(argv) > 0 && (argv[0] == "taskset" || strings.HasSuffix(argv[0], "/taskset")) {
		if len(argv) < 3 || (argv[1] != "-c" && argv[1] != "--cpu-list") {
			return Command{Role: Server}, &CommandError{Arg: "taskset", Msg: "only taskset -c LIST is read back"}
		}
		var err error
		if cpus, err = parseCPUList(argv[2]); err != nil {
			errs = append(errs, &CommandError{Arg: "taskset -c " + argv[2], Msg: err.Error()})
		}
		argv = argv[3:]
	}
	if len(argv) == 0 {
		return Command{Role: Server}, errors.Join(append(errs, &CommandError{Arg: "", Msg: "no program"})...)
	}
	test, ok := TestOf(argv[0])
	if !ok {
		errs = append(errs, &CommandError{Arg: argv[0], Msg: "not one of perftest's BW and latency programs"})
	}
	c, err := ParseArgs(argv[1:])
	c.Options.Test = test
	c.Options.endOf(c.Role).CPUs = cpus
	return c, errors.Join(append(errs, err)...)
}

// ParseArgs reads a perftest command line without its program (argv[1:])
// back into Options, as ParseCommand does; Options.Test is left zero.
// The server's address is a word that is neither an option nor the value
// of one: the last argument, or, as getopt lets perftest take it
// anywhere ("ib_read_bw cn2 -a -F"), the first such word that does not
// follow an option Flags does not know (whose value it may be).
func ParseArgs(args []string) (Command, error) {
	var c Command
	var errs []error
	type arg struct {
		given []string // the argument and its value
		flag  *Flag    // its row; nil for an unknown option or a word
		val   string
	}
	var parsed []arg
	addr := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		f, ok := lookupFlag(a)
		long := strings.HasPrefix(a, "--")
		if ok && !f.Value && (long && strings.Contains(a, "=") || !long && a != f.Short) {
			ok = false // "-ab" (options run together), "--all=1": kept as given
		}
		if !ok || !isFlagArg(a) {
			parsed = append(parsed, arg{given: []string{a}})
			continue
		}
		val, inline := inlineValue(a, f)
		given := []string{a}
		if f.Value && !inline {
			if i+1 >= len(args) {
				errs = append(errs, &CommandError{Arg: a, Msg: "no value"})
				parsed = append(parsed, arg{given: given})
				continue
			}
			i++
			val = args[i]
			given = append(given, val)
		}
		parsed = append(parsed, arg{given: given, flag: &f, val: val})
	}
	words := func(yield func(int) bool) {
		for i, p := range parsed {
			if p.flag == nil && !isFlagArg(p.given[0]) && !yield(i) {
				return
			}
		}
	}
	for i := range words {
		if i == len(parsed)-1 || (i == 0 || parsed[i-1].flag != nil || !isFlagArg(parsed[i-1].given[0])) && addr < 0 {
			addr = i
		}
	}
	c.Role = Server
	if addr >= 0 {
		c.Role, c.ServerAddr = Client, parsed[addr].given[0]
	}
	var extra []string
	for i, p := range parsed {
		switch {
		case i == addr:
		case p.flag == nil || p.flag.set == nil:
			extra = append(extra, p.given...)
		default:
			switch err := p.flag.set(&c.Options, c.Role, p.val); {
			case errors.Is(err, errKeep):
				extra = append(extra, p.given...)
			case err != nil:
				errs = append(errs, &CommandError{Arg: p.given[0], Msg: fmt.Sprintf("value %q: %v", p.val, err)})
			}
		}
	}
	if c.Options.JSON { // --out_json with JSONFile's file
		extra = slices.DeleteFunc(extra, func(a string) bool { return a == "--out_json" })
	}
	c.Options.endOf(c.Role).Extra = extra
	return c, errors.Join(errs...)
}

// isFlagArg reports whether an argument is an option, not a value.
func isFlagArg(a string) bool { return rawFlagName(a) != "" }

// inlineValue returns the value given in the argument itself:
// "--iters=5", "-n5".
func inlineValue(a string, f Flag) (string, bool) {
	if strings.HasPrefix(a, "--") {
		_, v, ok := strings.Cut(a, "=")
		return v, ok
	}
	if f.Value && len(a) > 2 {
		return a[2:], true
	}
	return "", false
}

// ParsePair reads the two command lines of a pair back into one Options
// and the server's address: the shared fields from both (a field the
// two gave differently goes into each End's Extra as given, with
// AllowAsymmetric when it must be symmetric), each End from its own
// line, the Extra flags both begin with into Options.Extra. It is the
// inverse of ServerArgv and ClientArgv (CPUs as a taskset prefix).
//
// Similar to: diff <(echo $SERVER_ARGV) <(echo $CLIENT_ARGV)
func ParsePair(server, client []string) (Options, string, error) {
	cs, errS := ParseCommand(server)
	cc, errC := ParseCommand(client)
	errs := []error{errS, errC}
	if cs.Role != Server {
		errs = append(errs, &CommandError{Arg: cs.ServerAddr, Msg: "the server's command line ends with an address"})
	}
	if cc.Role != Client {
		errs = append(errs, &CommandError{Arg: strings.Join(client, " "), Msg: "the client's command line has no server address"})
	}
	s, c := cs.Options.endOf(cs.Role), cc.Options.endOf(cc.Role)
	o := cs.Options
	o.Server, o.Client = *s, *c
	if cs.Options.Test != cc.Options.Test {
		errs = append(errs, &CommandError{Arg: client[0], Msg: fmt.Sprintf("the server runs %v, the client %v", cs.Options.Test, cc.Options.Test)})
	}
	// Extra flags both sides begin with are the shared ones.
	n := 0
	for n < len(s.Extra) && n < len(c.Extra) && s.Extra[n] == c.Extra[n] {
		n++
	}
	// Do not split an option from its value.
	if n > 0 && n < len(s.Extra) && !isFlagArg(s.Extra[n]) {
		n--
	}
	o.Extra = rest(s.Extra[:n])
	o.Server.Extra, o.Client.Extra = rest(s.Extra[n:]), rest(c.Extra[n:])
	for _, f := range flagTable {
		if f.same == nil || f.same(&cs.Options, &cc.Options) {
			continue
		}
		if f.Field == "Port" { // always given: it cannot move to Extra
			errs = append(errs, &CommandError{Arg: "-p", Msg: fmt.Sprintf("the server listens on %d, the client connects to %d", cs.Options.port(), cc.Options.port())})
			continue
		}
		o.Server.Extra = append(o.Server.Extra, f.emit(&cs.Options, Server)...)
		o.Client.Extra = append(o.Client.Extra, f.emit(&cc.Options, Client)...)
		f.zero(&o, Server)
		if f.Symmetric {
			o.AllowAsymmetric = true
		}
	}
	return o, cc.ServerAddr, errors.Join(errs...)
}

// rest is nil for an empty slice, so that a read-back End compares equal
// to one that had no Extra.
func rest(a []string) []string {
	if len(a) == 0 {
		return nil
	}
	return slices.Clone(a)
}

// parseCPUList reads taskset -c's list: "2", "0-3,6".
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return nil, fmt.Errorf("CPU list %q", s)
			}
		}
		for cpu := a; cpu <= b; cpu++ {
			cpus = append(cpus, cpu)
		}
	}
	return cpus, nil
}
