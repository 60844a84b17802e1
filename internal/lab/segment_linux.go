package lab

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// A segment is the Ethernet hub of a network shared by three or more
// guests. Each guest's NIC on it is a QEMU dgram netdev between the
// guest's own unix socket and the hub's; the hub sends every frame it
// receives to every other member, as a hub does, so the guests share one
// L2 segment. It runs in the harness, on unix sockets in the run folder:
// nothing reaches the host's network, and parallel runs cannot meet (a
// multicast group on the host would be shared by every run at once).
type segment struct {
	conn    *net.UnixConn
	members []segmentPort
	done    sync.WaitGroup
	stopped chan struct{} // closed when forward returns
	readErr error         // why forward gave up; set before stopped is closed
}

// segmentPort is one member's output queue, like a switch port's: when a
// guest does not keep up, frames to it are dropped, never the others'.
type segmentPort struct {
	addr  *net.UnixAddr
	queue chan []byte
}

const (
	segmentQueue   = 512        // frames waiting per member
	segmentMaxSize = 64<<10 + 4 // larger than any frame QEMU sends
	// segmentWriteWait bounds a send to a member whose socket queue is
	// full (net.unix.max_dgram_qlen is small); then the frame is dropped.
	segmentWriteWait = time.Second
	// segmentReadErrors consecutive read errors stop the hub; between
	// them it backs off from segmentReadBackoff, doubling (about 1 s in
	// all), rather than spin on a socket that fails every read.
	segmentReadErrors  = 10
	segmentReadBackoff = time.Millisecond
)

// startSegment listens on hub and forwards among the member sockets
// (which QEMU creates as it starts; frames to a missing one are dropped).
func startSegment(hub string, members []string) (*segment, error) {
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: hub, Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	s := &segment{conn: conn, stopped: make(chan struct{})}
	for _, m := range members {
		p := segmentPort{addr: &net.UnixAddr{Name: m, Net: "unixgram"}, queue: make(chan []byte, segmentQueue)}
		s.members = append(s.members, p)
		s.done.Add(1)
		go s.send(p)
	}
	s.done.Add(1)
	go s.forward()
	return s, nil
}

// forward reads frames until the hub is closed, or its socket fails
// segmentReadErrors reads in a row, and queues each for every member but
// its sender.
func (s *segment) forward() {
	defer s.done.Done()
	defer close(s.stopped)
	defer func() {
		for _, p := range s.members {
			close(p.queue)
		}
	}()
	buf := make([]byte, segmentMaxSize)
	failed := 0
	for {
		n, from, err := s.conn.ReadFromUnix(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			if failed++; failed == segmentReadErrors {
				s.readErr = fmt.Errorf("lab: segment hub: %d reads failed in a row, the last: %w", failed, err)
				return
			}
			time.Sleep(segmentReadBackoff << (failed - 1))
			continue
		}
		failed = 0
		if n == 0 {
			continue
		}
		frame := append([]byte(nil), buf[:n]...)
		for _, p := range s.members {
			if from != nil && from.Name == p.addr.Name {
				continue
			}
			select {
			case p.queue <- frame:
			default: // the member's queue is full: dropped
			}
		}
	}
}

// send writes a member's queued frames to its socket.
func (s *segment) send(p segmentPort) {
	defer s.done.Done()
	for frame := range p.queue {
		s.conn.SetWriteDeadline(time.Now().Add(segmentWriteWait))
		s.conn.WriteToUnix(frame, p.addr) // a lost frame is what a hub does
	}
}

// Close stops the hub and waits for its goroutines; it returns why the
// hub stopped early, if it did.
func (s *segment) Close() error {
	err := s.conn.Close()
	s.done.Wait()
	if s.readErr != nil {
		return s.readErr
	}
	return err
}
