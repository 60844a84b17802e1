package host

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeSrun is a stand-in for srun on PATH: it records its argv (NUL
// separated, one file per call in dir), runs what follows "--" here, and
// handles SIGINT as srun does: a second one kills the task. With
// FAKE_SRUN_DEAF=1 it ignores SIGINT (an srun that hangs). Once its
// signal handling is set it writes ready.PID (srunReady).
const fakeSrun = `#!/bin/sh
printf '%s\0' "$@" > "$FAKE_SRUN_DIR/argv.$$"
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
"$@" &
child=$!
n=0
if [ "$FAKE_SRUN_DEAF" = 1 ]; then
	trap '' INT
else
	trap 'echo INT >> "$FAKE_SRUN_DIR/sig.$$"; n=$((n+1)); if [ $n -ge 2 ]; then kill -KILL -- -$child 2>/dev/null || kill -KILL $child; fi' INT
fi
: > "$FAKE_SRUN_DIR/ready.$$"
while :; do
	wait "$child"; rc=$?
	if [ $rc -gt 128 ] && kill -0 "$child" 2>/dev/null; then continue; fi
	break
done
# As srun does after the second SIGINT: the step was killed (SIGKILL),
# whichever of the trap and the reaping came first.
if [ "$n" -ge 2 ]; then exit 137; fi
exit $rc
`

// withFakeSrun puts the fake srun first on PATH and returns its record
// folder.
func withFakeSrun(t *testing.T) string {
	t.Helper()
	bin, rec := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "srun"), []byte(fakeSrun), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("FAKE_SRUN_DIR", rec)
	t.Setenv("SLURM_JOB_ID", "4242")
	return rec
}

// srunReady waits until a fake srun has set its signal handling.
func srunReady(t *testing.T, rec string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(rec, "ready.*")); len(m) > 0 {
			return
		}
	}
	t.Fatal("the fake srun never got ready")
}

// srunCalls returns the argv of every fake srun call.
func srunCalls(t *testing.T, rec string) [][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(rec, "argv.*"))
	var calls [][]string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"))
	}
	return calls
}

// srunSignals counts the SIGINTs the fake srun saw.
func srunSignals(t *testing.T, rec string) int {
	files, _ := filepath.Glob(filepath.Join(rec, "sig.*"))
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		n += strings.Count(string(b), "INT")
	}
	return n
}

func TestSrunArgvOutputStatus(t *testing.T) {
	rec := withFakeSrun(t)
	dir := t.TempDir()
	s := Srun{Node: "node07", Args: []string{"--mpi=none"}}
	p, err := Run(context.Background(), s, Cmd{
		Argv: []string{"sh", "-c", `echo "out $A $(pwd)"; echo err >&2; exit 3`},
		Env:  []string{"A=b,c d"}, Dir: dir,
	})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status.Code != 3 || ee.Where != "srun node07" {
		t.Fatalf("err = %v, want exit status 3 on srun node07", err)
	}
	if got, want := p.Stdout().String(), "out b,c d "+dir+"\n"; got != want {
		t.Errorf("stdout %q, want %q (the wrapper's PID line hidden)", got, want)
	}
	if got := p.Stderr().String(); got != "err\n" {
		t.Errorf("stderr %q", got)
	}
	calls := srunCalls(t, rec)
	if len(calls) != 1 {
		t.Fatalf("%d srun calls", len(calls))
	}
	argv := calls[0]
	dash := slices.Index(argv, "--")
	want := []string{"--jobid=4242", "--nodelist=node07", "--nodes=1", "--ntasks=1", "--overlap",
		"--input=none", "--export=ALL", "--job-name=rocekit-sh", "--mpi=none"}
	if dash < 0 || !slices.Equal(argv[:dash], want) {
		t.Fatalf("srun options %q, want %q", argv, want)
	}
	rest := argv[dash+1:]
	// /bin/sh -c SCRIPT rocekit NONCE DIR NENV BUF CPUS ENV... ARGV...
	if len(rest) != 13 || rest[0] != "/bin/sh" || rest[2] != remoteScript || rest[5] != dir || rest[6] != "1" ||
		rest[7] != "0" || rest[8] != "" || rest[9] != "A=b,c d" || rest[10] != "sh" {
		t.Errorf("task argv %q", rest)
	}
	if p.PID() <= 0 {
		t.Errorf("PID %d", p.PID())
	}
}

func TestSrunSignalAndNotFound(t *testing.T) {
	withFakeSrun(t)
	s := Srun{Node: "n1", JobID: "99"}
	p, err := Run(context.Background(), s, Cmd{Argv: []string{"sh", "-c", "kill -TERM $$"}})
	if p == nil || p.Status().Signal != syscall.SIGTERM {
		t.Errorf("status %v (%v), want signal TERM from srun's 128+15", p.Status(), err)
	}
	_, err = s.Start(context.Background(), Cmd{Argv: []string{"rocekit-no-such-program"}})
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing program: %v, want a StartError wrapping exec.ErrNotFound", err)
	}
	_, err = s.Start(context.Background(), Cmd{Argv: []string{"true"}, LineBuffered: true, CPUs: []int{0}})
	if err != nil {
		t.Errorf("stdbuf and taskset on the node: %v", err)
	}
}

func TestSrunNoAllocation(t *testing.T) {
	withFakeSrun(t)
	t.Setenv("SLURM_JOB_ID", "")
	_, err := Srun{Node: "n1"}.Start(context.Background(), Cmd{Argv: []string{"true"}})
	if !errors.Is(err, ErrNoAllocation) {
		t.Errorf("err = %v, want ErrNoAllocation", err)
	}
	_, err = Srun{Node: "n1,n2"}.Start(context.Background(), Cmd{Argv: []string{"true"}})
	if !errors.Is(err, ErrInvalidCmd) {
		t.Errorf("two nodes: %v, want ErrInvalidCmd", err)
	}
}

func TestSrunCancel(t *testing.T) {
	rec := withFakeSrun(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	p, err := Srun{Node: "n1"}.Start(ctx, Cmd{Argv: []string{"sh", "-c", "echo ready; exec sleep 30"},
		OnStdout: func(l string) {
			if l == "ready" {
				close(ready)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	<-ready
	cancel()
	err = p.Wait(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want an ExitError killed by context.Canceled", err)
	}
	if n := srunSignals(t, rec); n != 2 {
		t.Errorf("srun got %d SIGINTs, want 2 (one only asks srun for status)", n)
	}
	if p.Status().Signal != syscall.SIGKILL {
		t.Errorf("status %v, want the task killed", p.Status())
	}
	if alive(p.PID()) {
		t.Errorf("task %d still runs", p.PID())
	}
}

func TestSrunKillAfterGrace(t *testing.T) {
	rec := withFakeSrun(t)
	t.Setenv("FAKE_SRUN_DEAF", "1")
	p, err := Srun{Node: "n1", KillGrace: time.Millisecond}.Start(context.Background(), Cmd{Argv: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-p.PID(), syscall.SIGKILL) })
	srunReady(t, rec) // a SIGINT before its trap is set would end it at once
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	err = p.Wait(context.Background())
	if !errors.Is(err, ErrKilled) || p.Status().Signal != syscall.SIGKILL {
		t.Errorf("err = %v, status %v: want srun itself killed", err, p.Status())
	}
}

// TestSrunReadiness: WaitListening and WaitProcessListening read the
// node's TCP tables through srun steps (cat /proc/.../net/tcp there).
func TestSrunReadiness(t *testing.T) {
	rec := withFakeSrun(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	s := Srun{Node: "n1"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := WaitListening(ctx, s, port); err != nil {
		t.Fatal(err)
	}
	p, err := s.Start(ctx, Cmd{Argv: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { // ended before the record folder is removed: the fake writes there on SIGINT
		p.Kill()
		p.Wait(context.Background())
	}()
	if err := WaitProcessListening(ctx, p, port); err != nil {
		t.Fatal(err)
	}
	var tables int
	for _, c := range srunCalls(t, rec) {
		if i := slices.Index(c, "--"); i >= 0 && strings.Contains(strings.Join(c[i:], " "), `cat "$1/tcp"`) {
			tables++
		}
	}
	if tables < 2 {
		t.Errorf("%d TCP table reads through srun, want one per helper", tables)
	}
	q, err := s.Start(ctx, Cmd{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := WaitProcessListening(ctx, q, 1); !errors.Is(err, ErrNotListening) {
		t.Errorf("ended task: %v, want ErrNotListening", err)
	}
}
