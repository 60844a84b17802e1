//go:build linux

package netperf

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/lab/capture"
)

// captureFlag regenerates testdata/loopback from the netperf installed on
// this machine:
//
//	go test ./netperf -run TestCaptureLoopback -capture
//
// Each case starts its own "netserver -D -p PORT" on 127.0.0.1, waits for
// its listening socket, runs netperf, stops that netserver by its PID and
// writes the outputs with a case.json written by the lab's capture package.
var captureFlag = flag.Bool("capture", false, "capture netperf/testdata/loopback from the local netperf")

// loopbackCase is one capture: netperf ARGS against a private netserver.
type loopbackCase struct {
	name     string
	args     string // after "netperf -H 127.0.0.1 -p PORT"
	noServer bool
	fail     bool
	// killChild kills netserver's per-test child while netperf runs.
	killChild bool
	note      string
}

// lbCPU is the -k list of the tcp-stream-k-cpu case (lbLatency is in
// fixture_loopback_test.go).
// lbSockbuf asks for the socket sizes requested and granted.
const lbSockbuf = "THROUGHPUT,THROUGHPUT_UNITS,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,LSS_SIZE_REQ,LSR_SIZE_REQ,RSS_SIZE_REQ,RSR_SIZE_REQ,LSS_SIZE_END,LSR_SIZE_END,RSS_SIZE_END,RSR_SIZE_END"

const lbCPU = "THROUGHPUT,THROUGHPUT_UNITS,LOCAL_CPU_UTIL,REMOTE_CPU_UTIL,LOCAL_SD,REMOTE_SD,SD_UNITS,LOCAL_CPU_METHOD,REMOTE_CPU_METHOD"

func loopbackCases() []loopbackCase {
	return []loopbackCase{
		{name: "tcp-stream-v0", args: "-t TCP_STREAM -l 1 -v 0", note: "-v 0: banner and one number (the throughput, no unit)"},
		{name: "tcp-stream-p0-v0", args: "-P 0 -v 0 -t TCP_STREAM -l 1", note: "-P 0 -v 0: one bare number"},
		{name: "tcp-stream-f-k", args: "-t TCP_STREAM -l 1 -f k", note: "-f k: 10^3bits/sec"},
		{name: "tcp-stream-f-g", args: "-t TCP_STREAM -l 1 -f g", note: "-f g: 10^9bits/sec"},
		{name: "tcp-stream-f-K", args: "-t TCP_STREAM -l 1 -f K", note: "-f K: KBytes/sec (2^10 bytes)"},
		{name: "tcp-stream-f-M", args: "-t TCP_STREAM -l 1 -f M", note: "-f M: MBytes/sec (2^20 bytes)"},
		{name: "tcp-stream-f-G", args: "-t TCP_STREAM -l 1 -f G", note: "-f G: GBytes/sec (2^30 bytes)"},
		{name: "tcp-stream-f-B", args: "-t TCP_STREAM -l 1 -f B", note: "-f B: Bytes/sec"},
		{name: "tcp-stream-f-b", args: "-t TCP_STREAM -l 1 -f b", note: "-f b: labelled 10^0bits/sec but the value is bytes/s (netperf bug)"},
		{name: "tcp-stream-p0-brand", args: "-P 0 -B run42 -t TCP_STREAM -l 1", note: "-P 0 -B: the brand follows the data line"},
		{name: "tcp-rr-p0-brand", args: "-P 0 -B run42 -t TCP_RR -l 1", note: "-P 0 -B on TCP_RR: brand on the first line, second line kept"},
		{name: "tcp-crr-p0", args: "-P 0 -t TCP_CRR -l 1", note: "-P 0 TCP_CRR: two lines, no titles"},
		{name: "udp-stream-p0", args: "-P 0 -t UDP_STREAM -l 1 -- -m 1400", note: "-P 0 UDP_STREAM: the two data lines without titles"},
		{name: "udp-stream-v0", args: "-t UDP_STREAM -l 1 -v 0 -- -m 1400", note: "-v 0 UDP_STREAM: the send-side throughput"},
		{name: "tcp-rr-v0", args: "-t TCP_RR -l 1 -v 0", note: "-v 0 TCP_RR: the transaction rate"},
		{name: "tcp-stream-cpu-v0", args: "-t TCP_STREAM -l 1 -c -C -v 0", note: "-c -C -v 0: the service demand and its method, not the throughput"},
		{name: "tcp-rr-f-m", args: "-t TCP_RR -l 1 -f m", note: "TCP_RR -f m: a Throughput column in 10^6bits/sec instead of Trans. Rate"},
		{name: "tcp-rr-v2", args: "-t TCP_RR -l 1 -v 2", note: "TCP_RR -v 2: alignment, round-trip latency and outbound/inbound throughput"},
		{name: "tcp-stream-cpu-v2", args: "-t TCP_STREAM -l 1 -c -C -v 2", note: "TCP_STREAM -c -C -v 2"},
		{name: "udp-rr-cpu", args: "-t UDP_RR -l 1 -c -C", note: "UDP_RR -c -C"},
		{name: "tcp-crr-cpu", args: "-t TCP_CRR -l 1 -c -C", note: "TCP_CRR -c -C: no CPU method letters in the title"},
		{name: "tcp-maerts-cpu", args: "-t TCP_MAERTS -l 1 -c -C", note: "TCP_MAERTS -c -C"},
		{name: "udp-rr-csv", args: "-t UDP_RR -l 1 -- -o " + lbLatency, note: "UDP_RR -o latency selectors, with the CSV header"},
		{name: "udp-rr-csv-p0", args: "-P 0 -t UDP_RR -l 1 -- -o " + lbLatency, note: "-P 0 -o: the CSV value line alone"},
		{name: "tcp-stream-csv-brand", args: "-t TCP_STREAM -l 1 -B a,b -- -o THROUGHPUT,RESULT_BRAND,COMMAND_LINE,LOCAL_FILL_FILE,THROUGHPUT_UNITS", note: "-o with quoted fields holding commas and an empty field"},
		{name: "tcp-stream-csv-all", args: "-t TCP_STREAM -l 1 -- -o all", note: "-o all: every selector's CSV header"},
		{name: "tcp-stream-human-all", args: "-t TCP_STREAM -l 1 -- -O all", note: "-O all: every selector in human columns"},
		{name: "tcp-stream-human-blocks", args: "-t TCP_STREAM -l 1 -- -O THROUGHPUT,THROUGHPUT_UNITS;ELAPSED_TIME,PROTOCOL,COMMAND_LINE", note: "-O with two ;-separated blocks"},
		{name: "tcp-stream-human-p0", args: "-P 0 -t TCP_STREAM -l 1 -- -O THROUGHPUT,THROUGHPUT_UNITS,PROTOCOL", note: "-P 0 -O: the value row alone"},
		{name: "tcp-rr-human-default", args: "-t TCP_RR -l 1 -- -O", note: "-O without a list: the test's default selectors"},
		{name: "udp-stream-k-all", args: "-t UDP_STREAM -l 1 -- -m 1400 -k all", note: "UDP_STREAM -k all"},
		{name: "tcp-stream-k-cpu", args: "-t TCP_STREAM -l 1 -c -C -- -k " + lbCPU, note: "-k with the CPU selectors"},
		{name: "tcp-stream-demo", args: "-t TCP_STREAM -l 1 -D 0.3", note: "demo mode -D: Interim result lines before the classic table"},
		{name: "tcp-stream-demo-k", args: "-t TCP_STREAM -l 1 -D 0.3 -- -k THROUGHPUT,THROUGHPUT_UNITS", note: "demo mode with -k: NETPERF_*[n] interim keys"},
		{name: "tcp-stream-demo-csv", args: "-t TCP_STREAM -l 1 -D 0.3 -- -o THROUGHPUT,THROUGHPUT_UNITS", note: "demo mode with -o: interim CSV lines before the header"},
		{name: "tcp-stream-demo-human", args: "-t TCP_STREAM -l 1 -D 0.3 -- -O THROUGHPUT,THROUGHPUT_UNITS", note: "demo mode with -O"},
		{name: "confidence-p0-v0", args: "-P 0 -v 0 -t TCP_STREAM -l 1 -i 3,3 -I 99,1", note: "-P 0 -v 0 with -I 99,1: the !!! block still precedes the number when confidence is missed"},
		{name: "bad-test-option", args: "-t TCP_STREAM -l 1 -- -X", note: "a bad test-specific option: stderr complains, the test runs, exit 0"},
		{name: "bad-option", args: "-X", noServer: true, fail: true, note: "expected failure: bad global option, usage on stderr (exit 1)"},
		{name: "missing-argument", args: "-t TCP_STREAM -l", noServer: true, fail: true, note: "expected failure: option requires an argument (exit 1)"},
		{name: "resolve", args: "-t TCP_STREAM -l 1 -H no.such.host.invalid", noServer: true, fail: true, note: "expected failure: the host name does not resolve (exit 255)"},
		{name: "selector-file", args: "-t TCP_STREAM -l 1 -- -o THROUGHPUTX", fail: true, note: "expected failure: one unknown selector is taken as a file name (exit 255)"},
		{name: "confidence-level", args: "-t TCP_STREAM -l 1 -I 90,5", fail: true, note: "expected failure: confidence level other than 95 or 99 (exit 255)"},
		{name: "message-too-long", args: "-t UDP_STREAM -l 1 -- -m 70000", fail: true, note: "expected failure: send_data: data send error: Message too long (exit 1)"},
		{name: "udp-stream-sockbuf-clamp", args: "-t UDP_STREAM -l 1 -- -m 1400 -s 64M -S 64M -k " + lbSockbuf, note: "-s/-S 64M above net.core.wmem_max/rmem_max: *_SIZE_END is twice the cap, not twice the request"},
		{name: "udp-stream-sockbuf-ok", args: "-t UDP_STREAM -l 1 -- -m 1400 -s 1M -S 1M -k " + lbSockbuf, note: "-s/-S 1M under the caps: *_SIZE_END is twice the request (Linux doubles SO_SNDBUF/SO_RCVBUF)"},
		{name: "server-killed", args: "-t TCP_STREAM -l 4", killChild: true, fail: true, note: "expected failure: netserver's test child killed during the test (exit 1)"},
		{name: "tcp-stream-p0-v0-demo", args: "-P 0 -v 0 -D 0.3 -t TCP_STREAM -l 1", note: "-P 0 -v 0 -D: interim lines with their unit, then the bare number in that unit"},
		{name: "tcp-rr-p0-v0-demo", args: "-P 0 -v 0 -D 0.3 -t TCP_RR -l 1", note: "-P 0 -v 0 -D on TCP_RR: interim lines in Trans/s, then the bare rate"},
	}
}

func TestCaptureLoopback(t *testing.T) {
	if !*captureFlag {
		t.Skip("run with -capture to regenerate testdata/loopback")
	}
	if _, err := exec.LookPath("netperf"); err != nil {
		t.Fatal("netperf is not installed")
	}
	version := strings.TrimSpace(string(mustOutput(t, "netperf", "-V")))
	pkg := strings.TrimSpace(string(mustOutput(t, "dpkg-query", "-W", "-f", "${Version}", "netperf")))
	kernel := strings.TrimSpace(string(mustOutput(t, "uname", "-r")))
	toolVersion := fmt.Sprintf("%s (%s)", pkg, version)
	root := filepath.Join("testdata", "loopback")

	base := capture.Case{Suite: "loopback", Kernel: kernel, Tool: "netperf", ToolVersion: toolVersion, Files: []string{}}
	writeVersionCase(t, root, base)
	for i, c := range loopbackCases() {
		t.Run(c.name, func(t *testing.T) {
			captureOne(t, root, base, c, 13900+i)
		})
	}
}

func mustOutput(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

func writeVersionCase(t *testing.T, root string, base capture.Case) {
	dir := filepath.Join(root, "version")
	cj := base
	cj.ID, cj.Note, cj.Expect = "netperf/version", "netperf -V", capture.ExpectOK
	cj.Captured = nowSecond()
	side := runSide(t, dir, capture.RoleCmd, []string{"netperf", "-V"}, nil)
	cj.Sides = []capture.Side{side}
	writeCase(t, dir, cj)
}

func captureOne(t *testing.T, root string, base capture.Case, c loopbackCase, port int) {
	dir := filepath.Join(root, c.name)
	cj := base
	cj.ID, cj.Note = "netperf/"+c.name, c.note
	cj.Expect = capture.ExpectOK
	if c.fail {
		cj.Expect = capture.ExpectFail
	}
	cj.Captured = nowSecond()
	p := strconv.Itoa(port)
	client := append([]string{"netperf", "-H", "127.0.0.1", "-p", p}, strings.Fields(c.args)...)

	var server *exec.Cmd
	var serverOut, serverErr bytes.Buffer
	var serverStart time.Time
	if !c.noServer {
		server = exec.Command("netserver", "-D", "-p", p)
		server.Stdout, server.Stderr = &serverOut, &serverErr
		serverStart = time.Now()
		if err := server.Start(); err != nil {
			t.Fatal(err)
		}
		polls, err := waitListen(server.Process.Pid, port, 10*time.Second)
		if err != nil {
			_ = server.Process.Kill()
			_ = server.Wait()
			t.Fatal(err)
		}
		cj.Log = append(cj.Log, fmt.Sprintf("server listening on port %d after %.3fs (%d polls)", port, time.Since(serverStart).Seconds(), polls))
	} else {
		cj.Log = append(cj.Log, "no server: the client runs alone")
	}

	var during func(pid int)
	if c.killChild {
		during = func(int) {
			child, err := waitChild(server.Process.Pid, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			cj.Log = append(cj.Log, fmt.Sprintf("killed netserver's test child %d", child))
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	}
	side := runSide(t, dir, capture.RoleClient, client, during)
	sides := []capture.Side{}
	if server != nil {
		// netserver forks a child per test; a child whose test failed can
		// outlive its parent, so stop the children too, by PID.
		children := childPIDs(server.Process.Pid)
		_ = server.Process.Signal(syscall.SIGTERM)
		_ = server.Wait()
		for _, c := range children {
			_ = syscall.Kill(c, syscall.SIGTERM)
		}
		ss := capture.Side{
			Role: capture.RoleServer, Command: strings.Join(server.Args, " "), Exit: -1,
			Seconds: round3(time.Since(serverStart).Seconds()),
			Stdout:  "server.stdout", Stderr: "server.stderr", Signal: "SIGTERM", Stopped: true,
		}
		if server.ProcessState != nil && server.ProcessState.Exited() {
			ss.Exit, ss.Signal, ss.Stopped = server.ProcessState.ExitCode(), "", false
		}
		writeFile(t, filepath.Join(dir, "server.stdout"), serverOut.Bytes())
		writeFile(t, filepath.Join(dir, "server.stderr"), serverErr.Bytes())
		sides = append(sides, ss)
	}
	cj.Sides = append(sides, side)
	writeCase(t, dir, cj)
	if (side.Exit != 0) != c.fail {
		t.Errorf("%s: exit %d, expected fail=%v", c.name, side.Exit, c.fail)
	}
}

// runSide runs argv, stores role.stdout and role.stderr in dir, and calls
// during (when not nil) once the process has started.
func runSide(t *testing.T, dir, role string, argv []string, during func(pid int)) capture.Side {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during(cmd.Process.Pid)
	}
	err := cmd.Wait()
	side := capture.Side{
		Role: role, Command: strings.Join(argv, " "),
		Seconds: round3(time.Since(start).Seconds()),
		Stdout:  role + ".stdout", Stderr: role + ".stderr",
		TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded),
	}
	side.Exit = cmd.ProcessState.ExitCode()
	if err != nil && side.Exit == 0 {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, side.Stdout), out.Bytes())
	writeFile(t, filepath.Join(dir, side.Stderr), errb.Bytes())
	return side
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// waitListen polls /proc/PID/net/tcp and tcp6 until a socket in state 0A
// (LISTEN) on port appears.
func waitListen(pid, port int, limit time.Duration) (int, error) {
	want := fmt.Sprintf(":%04X ", port)
	deadline := time.Now().Add(limit)
	for polls := 1; ; polls++ {
		for _, f := range []string{"tcp", "tcp6"} {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				fs := strings.Fields(line)
				if len(fs) > 3 && strings.HasSuffix(fs[1]+" ", want) && fs[3] == "0A" {
					return polls, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return polls, fmt.Errorf("netserver %d: no listening socket on port %d after %v", pid, port, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// childPIDs lists the children of pid.
func childPIDs(pid int) []int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// waitChild polls /proc/PID/task/PID/children until netserver has forked
// its per-test child.
func waitChild(pid int, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if c := childPIDs(pid); len(c) > 0 {
			return c[0], nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("netserver %d forked no child within %v", pid, limit)
}

func writeCase(t *testing.T, dir string, cj capture.Case) {
	t.Helper()
	if err := capture.WriteCase(dir, &cj); err != nil {
		t.Fatal(err)
	}
}

// nowSecond is capture's Captured stamp: UTC, to the second.
func nowSecond() time.Time { return time.Now().UTC().Truncate(time.Second) }

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
