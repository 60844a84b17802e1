package netperf

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// With Serial, netserver runs each test in its own process (-f): no
// per-test child, which PDEATHSIG would not reach and which would outlive
// a SIGKILLed caller. During a TCP_STREAM, netserver has no child.
func TestRootNetserverNoPerTestChild(t *testing.T) {
	p := newPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := StartNetserver(ctx, p.srv, ServerOptions{Port: 12871, Family: IPv4, Serial: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Kill() })
	cli, err := p.cli.Start(ctx, host.Cmd{Argv: (&Options{Test: TestTCPStream, Host: srvAddr, Port: s.Port(), Length: 20 * time.Second}).Argv()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Kill()
	waitDataConnection(t, p)
	var children []string
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(s.PID()) + "/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/task/" + task.Name() + "/children")
		children = append(children, strings.Fields(string(b))...)
	}
	if len(children) != 0 {
		t.Errorf("netserver (PID %d) has children %v during a test: one outlives a killed caller", s.PID(), children)
	}
}
