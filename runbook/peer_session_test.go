package runbook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// sessionAgent runs ServePeerSession on pipes: the test writes requests
// and reads reply lines.
type sessionAgent struct {
	in    *io.PipeWriter
	lines chan peerReply
	done  chan error
}

func startSessionAgent(t *testing.T, protocol int) *sessionAgent {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := &sessionAgent{in: inW, lines: make(chan peerReply, 16), done: make(chan error, 1)}
	go func() {
		err := ServePeerSession(context.Background(), protocol, t.TempDir(), "", inR, outW)
		outW.Close()
		a.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var r peerReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("agent line %q: %v", sc.Text(), err)
			}
			a.lines <- r
		}
		close(a.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return a
}

func (a *sessionAgent) send(t *testing.T, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(a.in, line); err != nil {
		t.Fatal(err)
	}
}

func (a *sessionAgent) next(t *testing.T) peerReply {
	t.Helper()
	select {
	case r, ok := <-a.lines:
		if !ok {
			t.Fatal("the agent's output ended")
		}
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("no line from the agent within 20 s")
	}
	return peerReply{}
}

// TestServePeerSession: a session says so first, answers each request
// under its id (concurrently: a call that lasts does not hold up the
// next), ends one on cancel, refuses exec and a line that is no request,
// and ends its calls with its input.
func TestServePeerSession(t *testing.T) {
	a := startSessionAgent(t, PeerProtocol)
	if r := a.next(t); !r.Session || r.Protocol != PeerProtocol || r.ID != 0 {
		t.Fatalf("first line %+v, want the session's", r)
	}
	// A watch of this test's own process: it has no UDP socket, so the
	// watch lasts until it is ended.
	a.send(t, fmt.Sprintf(`{"id":7,"op":"watch-udp-sockets","arg":{"pid":%d,"every_ns":10000000,"max_ns":60000000000}}`, os.Getpid()))
	if r := a.next(t); r.ID != 7 || !r.Ready {
		t.Fatalf("%+v, want the watch's ready line", r)
	}
	a.send(t, `{"id":8,"op":"exec","arg":{"argv":["true"]}}`)
	if r := a.next(t); r.ID != 8 || r.Error == nil || r.Error.Kind != "tune_invalid_input" || !strings.Contains(r.Error.Message, "exec") {
		t.Errorf("exec in a session: %+v, want refused", r)
	}
	a.send(t, `not a request`)
	if r := a.next(t); r.ID != 0 || r.Error == nil || r.Error.Op != sessionOp {
		t.Errorf("a line that is no request: %+v, want an error of the session", r)
	}
	a.send(t, `{"id":9,"op":"no-such-op"}`)
	if r := a.next(t); r.ID != 9 || r.Error == nil || !strings.Contains(r.Error.Message, "unknown operation") {
		t.Errorf("unknown operation: %+v", r)
	}
	began := time.Now()
	a.send(t, `{"id":7,"cancel":true}`)
	r := a.next(t)
	var w UDPWatch
	if r.ID != 7 || r.Error != nil || json.Unmarshal(r.Result, &w) != nil || w.Samples == 0 || r.SelfCPUNs <= 0 {
		t.Errorf("the watch after cancel: %+v (%+v), want its result", r, w)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("cancel answered after %v", took)
	}
	// The end of the input ends a call under way, and the session.
	a.send(t, fmt.Sprintf(`{"id":10,"op":"watch-udp-sockets","arg":{"pid":%d,"every_ns":10000000}}`, os.Getpid()))
	if r := a.next(t); r.ID != 10 || !r.Ready {
		t.Fatalf("%+v, want the second watch's ready line", r)
	}
	a.in.Close()
	if r := a.next(t); r.ID != 10 || r.Error != nil {
		t.Errorf("the watch at the input's end: %+v, want its result", r)
	}
	if err := <-a.done; err != nil {
		t.Errorf("ServePeerSession: %v", err)
	}
}

// TestServePeerSessionProtocol: a caller of another version gets one
// refusal, classified, and no session.
func TestServePeerSessionProtocol(t *testing.T) {
	a := startSessionAgent(t, PeerProtocol-1)
	r := a.next(t)
	if r.Session || r.Error == nil || r.Error.Kind != "protocol" {
		t.Errorf("first line %+v, want the protocol refusal", r)
	}
	if err := <-a.done; !errors.Is(err, ErrPeerProtocol) {
		t.Errorf("ServePeerSession: %v, want ErrPeerProtocol", err)
	}
}
