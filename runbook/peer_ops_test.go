package runbook

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// agentOp is the operation an agent call's argv names: the word after
// the flags ("-protocol 5 -journal-dir D -netns N [-timeout T] OP ARG").
func agentOp(argv []string) string {
	for i := 1; i < len(argv); i += 2 {
		if !strings.HasPrefix(argv[i], "-") {
			return argv[i]
		}
	}
	return ""
}

// TestPeerMethodsUseTable: every Peer method that calls the agent calls an
// operation of the table, and every operation of the table is called by
// one (exec by the Peer's Runner, restore-since by the ordered restore);
// an operation not in the table is refused before anything is run.
func TestPeerMethodsUseTable(t *testing.T) {
	f := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
		return host.FakeScript{Stdout: fmt.Sprintf(`{"protocol":%d,"result":null}`, PeerProtocol) + "\n"}
	}}
	p := &Peer{Via: f}
	ctx := context.Background()
	ctxType := reflect.TypeFor[context.Context]()
	pv := reflect.ValueOf(p)
	called := map[string]bool{}
	for i := range pv.NumMethod() {
		m := pv.Type().Method(i)
		mt := pv.Method(i).Type()
		if mt.NumIn() == 0 || mt.In(0) != ctxType {
			continue
		}
		before := len(f.Calls())
		args := []reflect.Value{reflect.ValueOf(ctx)}
		for j := 1; j < mt.NumIn(); j++ {
			args = append(args, reflect.Zero(mt.In(j)))
		}
		out := pv.Method(i).Call(args)
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			t.Errorf("Peer.%s: %v", m.Name, err)
		}
		calls := f.Calls()[before:]
		if len(calls) != 1 {
			t.Errorf("Peer.%s made %d agent calls, want 1", m.Name, len(calls))
			continue
		}
		op := agentOp(calls[0].Argv)
		if peerOpNamed(op) == nil {
			t.Errorf("Peer.%s calls %q, not in the table", m.Name, op)
		}
		called[op] = true
	}
	if _, err := host.Run(ctx, p.Runner(), host.Cmd{Argv: []string{"netserver", "-D"}}); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	called[agentOp(calls[len(calls)-1].Argv)] = true
	if err := p.restoreSince(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	calls = f.Calls()
	called[agentOp(calls[len(calls)-1].Argv)] = true
	for _, o := range peerOps {
		if !called[o.Name] {
			t.Errorf("operation %s: no Peer method calls it", o.Name)
		}
	}

	n := len(f.Calls())
	err := p.call(ctx, "format-disk", nil, nil)
	var pe *PeerError
	if !errors.As(err, &pe) || pe.Op != "format-disk" || len(f.Calls()) != n {
		t.Errorf("an operation not in the table: %v, %d calls made", err, len(f.Calls())-n)
	}
}

// TestServePeerTable: the agent serves exactly the table's operations:
// each one gets past the lookup (its argument may still be refused), and
// a name not in it is refused as unknown.
func TestServePeerTable(t *testing.T) {
	ctx := context.Background()
	var names []string
	for _, o := range PeerOperations() {
		names = append(names, o.Name)
		if o.Name == "exec" {
			continue // replaces the test binary when it works
		}
		_, err := servePeer(ctx, t.TempDir(), "", o.Name, "{bad json", func() {})
		if err != nil && strings.Contains(err.Error(), "unknown operation") {
			t.Errorf("%s: %v", o.Name, err)
		}
	}
	if !slices.Contains(names, "restore") || !slices.Contains(names, "exec") || len(names) != len(peerOps) {
		t.Errorf("operations %v", names)
	}
	if _, err := servePeer(ctx, t.TempDir(), "", "formatdisk", `""`, nil); err == nil || !strings.Contains(err.Error(), `unknown operation "formatdisk" (rocekit-peer -h`) {
		t.Errorf("unknown operation: %v", err)
	}
	if _, err := servePeer(ctx, t.TempDir(), "", "set-mut", `""`, nil); err == nil || !strings.Contains(err.Error(), `unknown operation "set-mut" (did you mean "set-mtu"?)`) {
		t.Errorf("a mistyped operation: %v", err)
	}
}

// TestWritePeerUsage: one line per operation, with its example argument.
func TestWritePeerUsage(t *testing.T) {
	var b strings.Builder
	if err := WritePeerUsage(&b, "rocekit-peer"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(peerOps) {
		t.Fatalf("%d lines for %d operations:\n%s", len(lines), len(peerOps), b.String())
	}
	if lines[1] != `  rocekit-peer set-mtu '{"netdev":"eth0","mtu":1500}'` || !slices.Contains(lines, "  rocekit-peer host") {
		t.Errorf("usage:\n%s", b.String())
	}
}
