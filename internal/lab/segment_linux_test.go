package lab

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSegmentForwardsToEveryOtherMember: three members on unix datagram
// sockets, as QEMU's dgram netdevs are; a frame from one reaches the two
// others unchanged and not its sender, and a missing member costs nothing.
func TestSegmentForwardsToEveryOtherMember(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a", "b", "c", "gone"}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n+".sock"))
	}
	hub := filepath.Join(dir, "hub.sock")
	seg, err := startSegment(hub, paths)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	conns := map[string]*net.UnixConn{}
	for i, n := range names[:3] {
		c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: paths[i], Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[n] = c
	}
	hubAddr := &net.UnixAddr{Name: hub, Net: "unixgram"}
	for _, from := range names[:3] {
		frame := []byte("frame from " + from)
		if _, err := conns[from].WriteToUnix(frame, hubAddr); err != nil {
			t.Fatal(err)
		}
		for _, to := range names[:3] {
			if to == from {
				continue
			}
			got := read(t, conns[to], time.Second)
			if string(got) != string(frame) {
				t.Errorf("%s got %q, want %q", to, got, frame)
			}
		}
		if got := read(t, conns[from], 50*time.Millisecond); got != nil {
			t.Errorf("%s got its own frame back: %q", from, got)
		}
	}
	if err := seg.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// A hub whose socket fails every read gives up after a few backed-off
// tries instead of spinning, and Close says why.
func TestSegmentStopsOnRepeatedReadErrors(t *testing.T) {
	dir := t.TempDir()
	seg, err := startSegment(filepath.Join(dir, "hub.sock"), []string{filepath.Join(dir, "a.sock")})
	if err != nil {
		t.Fatal(err)
	}
	seg.conn.SetReadDeadline(time.Now()) // every read fails at once from now on
	select {
	case <-seg.stopped:
	case <-time.After(30 * time.Second):
		seg.Close()
		t.Fatal("the hub still reads after 30 s of failing reads")
	}
	if err := seg.Close(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("close: %v, want the read error", err)
	}
}

// read returns one datagram, or nil when none came within wait.
func read(t *testing.T, c *net.UnixConn, wait time.Duration) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 2048)
	n, _, err := c.ReadFromUnix(buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}
