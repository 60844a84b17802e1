package capture

import (
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func allCases(t *testing.T) []Spec {
	t.Helper()
	specs := Cases(NICVirtio)
	if len(specs) < 90 {
		t.Fatalf("Cases() has %d specs, want the full table (at least 90)", len(specs))
	}
	return specs
}

func TestCaseIDsUniqueAndWellFormed(t *testing.T) {
	groups := map[string]bool{GroupPerftest: true, GroupNetperf: true, GroupRDMA: true, GroupSysfs: true, GroupProc: true, GroupEthtool: true}
	seen := map[string]bool{}
	for _, s := range allCases(t) {
		id := s.ID()
		if !ValidID(id) {
			t.Errorf("%s: not <group>/<kebab-name>", id)
		}
		if !groups[s.Group] {
			t.Errorf("%s: group %q is not a table group", id, s.Group)
		}
		if seen[id] {
			t.Errorf("%s: duplicate id", id)
		}
		seen[id] = true
	}
}

func TestCaseSpecsComplete(t *testing.T) {
	for _, s := range allCases(t) {
		id := s.ID()
		if s.Note == "" {
			t.Errorf("%s: no note", id)
		}
		if !slices.Contains([]Expect{ExpectOK, ExpectFail, ExpectTimeoutOK}, s.Expect) {
			t.Errorf("%s: expect %q", id, s.Expect)
		}
		if pkg, _ := versionSource(s.Tool); pkg == "" && s.Tool != "kernel" {
			t.Errorf("%s: tool %q has no version source", id, s.Tool)
		}
		for _, p := range s.Needs {
			if _, ok := setupPhase(p, NICVirtio); !ok {
				t.Errorf("%s: needs unknown phase %q", id, p)
			}
		}
		if len(s.Steps) == 0 {
			t.Errorf("%s: no steps", id)
		}
		roles := map[string]bool{}
		for i, st := range s.Steps {
			set := 0
			for _, isSet := range []bool{st.Run != nil, st.Pair != nil, st.Files != nil} {
				if isSet {
					set++
				}
			}
			if set != 1 {
				t.Errorf("%s: step %d sets %d kinds, want exactly 1", id, i, set)
			}
			for _, c := range stepCommands(st) {
				if roles[c.Role] || c.Role == "" || strings.ContainsAny(c.Role, "/ ") {
					t.Errorf("%s: role %q is empty, repeated or not a file name", id, c.Role)
				}
				roles[c.Role] = true
			}
		}
	}
}

// stepCommands returns the commands of a step.
func stepCommands(st Step) []Command {
	switch {
	case st.Run != nil:
		return []Command{*st.Run}
	case st.Pair != nil && st.Pair.Server != nil:
		return []Command{*st.Pair.Server, st.Pair.Client}
	case st.Pair != nil:
		return []Command{st.Pair.Client}
	}
	return nil
}

func pairs(specs []Spec) map[string]*Pair {
	out := map[string]*Pair{}
	for _, s := range specs {
		for _, st := range s.Steps {
			if st.Pair != nil {
				out[s.ID()] = st.Pair
			}
		}
	}
	return out
}

func TestPairPortsDistinctAndUsed(t *testing.T) {
	byPort := map[int]string{}
	for id, p := range pairs(allCases(t)) {
		if other, dup := byPort[p.Port]; dup {
			t.Errorf("%s and %s share port %d", id, other, p.Port)
		}
		byPort[p.Port] = id
		for _, c := range stepCommands(Step{Pair: p}) {
			i := slices.Index(c.Argv, "-p")
			if i < 0 || i+1 >= len(c.Argv) || c.Argv[i+1] != strconv.Itoa(p.Port) {
				t.Errorf("%s: %s does not pass -p %d: %q", id, c.Role, p.Port, c.Argv)
			}
		}
	}
}

// clientOnlyOption reports options that perftest allows on one side only.
func clientOnlyOption(arg string) bool { return strings.HasPrefix(arg, "--out_json") }

// withoutStop drops the "timeout --preserve-status -s INT N" of a --run_infinitely side,
// whose N differs on purpose (the server is signalled later).
func withoutStop(argv []string) []string {
	if len(argv) > 5 && argv[0] == "timeout" {
		return argv[5:]
	}
	return argv
}

func TestPerftestPairsSymmetric(t *testing.T) {
	n := 0
	for _, s := range allCases(t) {
		p := pairs([]Spec{s})[s.ID()]
		if s.Group != GroupPerftest || p == nil || p.Server == nil {
			continue
		}
		n++
		server, client := withoutStop(p.Server.Argv), withoutStop(p.Client.Argv)
		if client[len(client)-1] != RXEAddr {
			t.Errorf("%s: client does not connect to %s last: %q", s.ID(), RXEAddr, client)
			continue
		}
		var clientArgs []string
		for _, a := range client[:len(client)-1] {
			if !clientOnlyOption(a) {
				clientArgs = append(clientArgs, a)
			}
		}
		symmetric := cmp.Equal(server, clientArgs)
		mismatch := strings.Contains(s.Name, "mismatch")
		switch {
		case mismatch && symmetric:
			t.Errorf("%s: a mismatch case with identical parameters", s.ID())
		case mismatch && s.Expect != ExpectTimeoutOK:
			t.Errorf("%s: a mismatch case may hang, want expect %q", s.ID(), ExpectTimeoutOK)
		case !mismatch && !symmetric:
			t.Errorf("%s: server and client differ:\n%s", s.ID(), cmp.Diff(server, clientArgs))
		}
		for _, c := range []Command{*p.Server, p.Client} {
			if !slices.Contains(c.Argv, "-d") || !slices.Contains(c.Argv, "-x") || !c.Stdbuf {
				t.Errorf("%s: %s lacks -d, -x or stdbuf: %q", s.ID(), c.Role, c.Argv)
			}
		}
	}
	if n < 30 {
		t.Errorf("checked %d perftest pairs, want at least 30", n)
	}
}

func TestNetperfPairsCrossNamespaces(t *testing.T) {
	for id, p := range pairs(allCases(t)) {
		if p.Client.Argv[0] != "netperf" {
			continue
		}
		if p.Client.Netns != NetnsA || !slices.Contains(p.Client.Argv, NetperfBAddr) || !p.StopServer {
			t.Errorf("%s: netperf must run in %s against %s and stop netserver: %+v", id, NetnsA, NetperfBAddr, p.Client)
		}
		if p.Server != nil && (p.Server.Netns != NetnsB || !cmp.Equal(p.Server.Argv[:2], []string{"netserver", "-D"})) {
			t.Errorf("%s: want netserver -D in %s, got %+v", id, NetnsB, p.Server)
		}
	}
}

func TestPlaceholdersNeedTheirPhase(t *testing.T) {
	for _, s := range allCases(t) {
		text := strings.Join(specStrings(s), " ")
		var phases []Phase
		for _, p := range s.Needs {
			phases = append(phases, phaseOrder(p, NICVirtio)...)
		}
		if strings.Contains(text, PlaceholderGID) && !slices.Contains(phases, PhaseRXE) {
			t.Errorf("%s uses %s without needing %s", s.ID(), PlaceholderGID, PhaseRXE)
		}
		if strings.Contains(text, PlaceholderNICA) && !slices.Contains(phases, PhaseNICs) {
			t.Errorf("%s uses %s without needing %s", s.ID(), PlaceholderNICA, PhaseNICs)
		}
		if strings.Contains(text, " "+NetnsA) && !slices.Contains(phases, PhaseNetns) {
			t.Errorf("%s uses %s without needing %s", s.ID(), NetnsA, PhaseNetns)
		}
	}
}

// specStrings returns every argv element, path and namespace of a spec.
func specStrings(s Spec) []string {
	var out []string
	for _, st := range s.Steps {
		for _, c := range stepCommands(st) {
			out = append(out, c.Argv...)
			out = append(out, c.Netns)
		}
		if st.Files != nil {
			out = append(out, st.Files.Paths...)
			out = append(out, st.Files.Netns)
		}
	}
	return out
}

var ipv4Like = regexp.MustCompile(`\b\d+\.\d+\.\d+\.\d+(/\d+)?\b`)

func TestOnlyBenchmarkingAddresses(t *testing.T) {
	lab := netip.MustParsePrefix("198.18.0.0/15")
	var all []string
	for _, s := range allCases(t) {
		all = append(all, specStrings(s)...)
	}
	for _, p := range []Phase{PhaseVeth, PhaseRXE, PhaseNICs, PhaseNetns} {
		for _, kind := range []NICKind{NICVirtio, NICVeth} {
			sp, _ := setupPhase(p, kind)
			for _, st := range sp.Steps {
				all = append(all, st.Argv...)
				all = append(all, st.Undo...)
			}
		}
	}
	found := 0
	for _, a := range all {
		for _, m := range ipv4Like.FindAllString(a, -1) {
			addr, err := netip.ParseAddr(strings.Split(m, "/")[0])
			if err != nil || !lab.Contains(addr) {
				t.Errorf("address %q outside %s", m, lab)
			}
			found++
		}
	}
	if found == 0 {
		t.Error("no addresses found: the check is broken")
	}
}

func TestSetupPhases(t *testing.T) {
	if got, want := phaseOrder(PhaseRXE, NICVirtio), []Phase{PhaseVeth, PhaseRXE}; !cmp.Equal(got, want) {
		t.Errorf("phaseOrder(rxe) = %v, want %v", got, want)
	}
	if got, want := phaseOrder(PhaseNetns, NICVeth), []Phase{PhaseNICs, PhaseNetns}; !cmp.Equal(got, want) {
		t.Errorf("phaseOrder(netns) = %v, want %v", got, want)
	}
	for _, kind := range []NICKind{NICVirtio, NICVeth} {
		for _, p := range []Phase{PhaseVeth, PhaseRXE, PhaseNICs, PhaseNetns} {
			sp, _ := setupPhase(p, kind)
			for _, st := range sp.Steps {
				creates := slices.Contains(st.Argv, "add") || slices.Contains(st.Argv, "netns") && slices.Contains(st.Argv, "set")
				isAddr := slices.Contains(st.Argv, "addr")
				if creates && !isAddr && st.Undo == nil {
					t.Errorf("%s/%s: %q changes the system without an undo", p, st.Role, st.Argv)
				}
			}
		}
	}
	for _, kind := range []NICKind{NICVirtio, NICVeth} {
		undoRoles := map[string]bool{} // one teardown record holds the undo of every phase
		for _, p := range []Phase{PhaseVeth, PhaseRXE, PhaseNICs, PhaseNetns} {
			sp, _ := setupPhase(p, kind)
			stepRoles := map[string]bool{}
			for _, st := range sp.Steps {
				if stepRoles[st.Role] {
					t.Errorf("%s: role %q repeated within the phase", p, st.Role)
				}
				stepRoles[st.Role] = true
				if st.Undo == nil {
					continue
				}
				if u := undoCommand(p, st).Role; undoRoles[u] {
					t.Errorf("teardown role %q repeated", u)
				} else {
					undoRoles[u] = true
				}
			}
		}
	}
	veth, _ := setupPhase(PhaseNICs, NICVeth)
	if !slices.Contains(veth.Steps[0].Argv, "veth") {
		t.Errorf("nics with NICVeth does not create a veth pair: %q", veth.Steps[0].Argv)
	}
	virtio, _ := setupPhase(PhaseNICs, NICVirtio)
	for _, st := range virtio.Steps {
		if st.Undo != nil || slices.Contains(st.Argv, "add") {
			t.Errorf("nics with NICVirtio must not create links: %q", st.Argv)
		}
	}
}

func TestEthtoolExpectationsFollowNICKind(t *testing.T) {
	expect := func(kind NICKind, id string) Expect {
		for _, s := range Cases(kind) {
			if s.ID() == id {
				return s.Expect
			}
		}
		t.Fatalf("no case %s", id)
		return ""
	}
	tests := []struct {
		kind NICKind
		id   string
		want Expect
	}{
		{NICVirtio, "ethtool/nic-a-rings", ExpectOK},
		{NICVeth, "ethtool/nic-a-rings", ExpectFail},
		{NICVeth, "ethtool/nic-a-stats", ExpectOK},
		{NICVirtio, "ethtool/veth0-coalesce", ExpectFail},
	}
	for _, tt := range tests {
		if got := expect(tt.kind, tt.id); got != tt.want {
			t.Errorf("%s with NIC kind %d: expect %q, want %q", tt.id, tt.kind, got, tt.want)
		}
	}
}

func TestSelect(t *testing.T) {
	specs := allCases(t)
	got := Select(specs, regexp.MustCompile(`^netperf/tcp-rr`))
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID())
	}
	want := []string{"netperf/tcp-rr", "netperf/tcp-rr-k-latency", "netperf/tcp-rr-csv", "netperf/tcp-rr-cpu"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("Select (-want +got):\n%s", diff)
	}
	if len(Select(specs, nil)) != len(specs) {
		t.Error("Select(nil) does not select all")
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"ib_send_bw", "-d", "rxe0", "--out_json_file=client.json", "198.18.0.1"}, "ib_send_bw -d rxe0 --out_json_file=client.json 198.18.0.1"},
		{[]string{"dpkg-query", "-W", "-f", "${Version}", "perftest"}, "dpkg-query -W -f '${Version}' perftest"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
	}
	for _, tt := range tests {
		if got := commandLine(tt.argv); got != tt.want {
			t.Errorf("commandLine(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}

func TestPlaceholdersExpand(t *testing.T) {
	p := placeholders{GIDIndex: 3, NICA: "eth0", NICB: "eth1", SelfPID: 42}
	got := p.expandAll([]string{"-x", PlaceholderGID, "/sys/class/net/" + PlaceholderNICA + "/mtu", PlaceholderNICB, "netns", PlaceholderSelfPID})
	want := []string{"-x", "3", "/sys/class/net/eth0/mtu", "eth1", "netns", "42"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expandAll (-want +got):\n%s", diff)
	}
}
