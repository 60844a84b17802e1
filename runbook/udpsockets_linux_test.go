package runbook

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestUDPOverflowChild is the child process of udpOverflow: it overflows
// a UDP receiver nobody reads on loopback, says "ready", and holds its
// sockets open until its standard input closes.
func TestUDPOverflowChild(t *testing.T) {
	if os.Getenv("ROCEKIT_UDP_OVERFLOW_CHILD") != "1" {
		t.Skip("the child process of udpOverflow")
	}
	rcv, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rcv.SetReadBuffer(1); err != nil { // the kernel's minimum
		t.Fatal(err)
	}
	snd, err := net.DialUDP("udp4", nil, rcv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 1400)
	for range 300 {
		snd.Write(msg)
	}
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
	rcv.Close()
	snd.Close()
}

// udpOverflow starts a process with two UDP sockets, the receiver
// overflowed (as netserver's is when the sender is faster), and returns
// its PID and a function that makes it close them and end. A process of
// its own, not this one: a test that left one of this process's threads
// in another network namespace would put sockets made here where
// /proc/PID/net/udp does not show them.
func udpOverflow(t testing.TB) (pid int, end func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUDPOverflowChild$")
	cmd.Env = append(os.Environ(), "ROCEKIT_UDP_OVERFLOW_CHILD=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("UDP child: %q, %v", line, err)
	}
	done := false
	end = func() {
		if !done {
			done = true
			in.Close()
			cmd.Wait()
		}
	}
	t.Cleanup(end)
	return cmd.Process.Pid, end
}

// TestWatchUDPSocketsUntilClosed: the agent's watch of a process's UDP
// sockets (a receiver nobody reads, overflowed) ends by itself once they
// closed, with the drops of their last reading and the namespace's Udp
// counters read with them.
func TestWatchUDPSocketsUntilClosed(t *testing.T) {
	pid, end := udpOverflow(t)
	go func() {
		time.Sleep(time.Second)
		end()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := (&Local{}).WatchUDPSockets(ctx, UDPWatchAsk{PID: pid, Every: 10 * time.Millisecond, Max: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var drops uint64
	for _, s := range w.Last {
		drops += s.Drops
	}
	if !w.Closed || len(w.Last) != 2 || drops == 0 || w.Samples < 2 || w.Counters == nil || w.Counters.RcvbufErrors < drops {
		t.Errorf("watch %+v: want closed, 2 sockets with drops, Udp counters read", w)
	}
	if _, err := (&Local{}).WatchUDPSockets(ctx, UDPWatchAsk{}); err == nil {
		t.Error("a watch of pid 0 started")
	}
}

// BenchmarkUDPWatchRead is one reading of a far watch (a process's UDP
// sockets and its namespace's Udp counters) on this host's kernel: at
// workflow.FarSampleEvery (250 ms) it costs the watched host the
// reported share of one core. The lab's TCG guests are far slower.
func BenchmarkUDPWatchRead(b *testing.B) {
	pid, _ := udpOverflow(b)
	ctx := context.Background()
	bench := func(b *testing.B, read func() int) {
		cpu0 := selfCPU()
		for b.Loop() {
			if read() != 2 {
				b.Fatal("a reading saw no sockets")
			}
		}
		perRead := (selfCPU() - cpu0) / time.Duration(b.N)
		b.ReportMetric(float64(perRead.Nanoseconds()), "cpu-ns/reading")
		b.ReportMetric(100*float64(perRead)/float64(250*time.Millisecond), "%core@250ms")
	}
	// tree: every reading finds the sockets again (children, open
	// files, tables), as each did before the watcher kept them.
	b.Run("tree", func(b *testing.B) {
		l := &Local{}
		bench(b, func() int {
			socks, err := l.UDPSockets(ctx, pid)
			if _, cerr := l.UDPCounters(ctx, pid); err != nil || cerr != nil {
				b.Fatal(err, cerr)
			}
			return len(socks)
		})
	})
	b.Run("watcher", func(b *testing.B) {
		w := NewUDPWatcher(&Local{})
		bench(b, func() int { return w.Read(ctx, pid) })
	})
}
