package host

import (
	"fmt"
	"time"

	"golang.org/x/crypto/ssh"
)

// keepalive probes the connection every interval until Close; a probe not
// answered within missed intervals, or a failed one, gives the connection
// up: it is closed, so every session on it ends at once instead of waiting
// for the kernel to time the TCP connection out (minutes).
//
// Similar to: ssh -o ServerAliveInterval=3 -o ServerAliveCountMax=3
func (s *SSH) keepalive(interval time.Duration, missed int) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-tick.C:
		}
		reply := make(chan error, 1)
		go func() {
			// Any reply, even "unknown request", means the peer is there.
			_, _, err := s.client.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		wait := time.NewTimer(interval * time.Duration(missed))
		select {
		case <-s.closed:
			wait.Stop()
			return
		case err := <-reply:
			wait.Stop()
			if err != nil {
				s.lose(err)
				return
			}
		case <-wait.C:
			s.lose(fmt.Errorf("no answer to keepalives for %s: the host or the network is gone", interval*time.Duration(missed)))
			return
		}
	}
}

// lose records why the connection was given up and closes it.
func (s *SSH) lose(err error) {
	s.lostMu.Lock()
	if s.lost == nil {
		s.lost = &LostError{Addr: s.addr, Err: err}
	}
	s.lostMu.Unlock()
	s.client.Close()
}

// lostErr is why the keepalives gave the connection up, or nil.
func (s *SSH) lostErr() error {
	s.lostMu.Lock()
	defer s.lostMu.Unlock()
	return s.lost
}

// newSession opens a session within the session timeout. A connection
// given up by the keepalives gives its *LostError.
func (s *SSH) newSession() (*ssh.Session, error) {
	if err := s.lostErr(); err != nil {
		return nil, err
	}
	type opened struct {
		sess *ssh.Session
		err  error
	}
	ch := make(chan opened, 1)
	s.sessions.Add(1)
	go func() {
		sess, err := s.client.NewSession()
		ch <- opened{sess, err}
	}()
	timer := time.NewTimer(s.sessionTimeout)
	defer timer.Stop()
	select {
	case o := <-ch:
		if o.err != nil {
			if lost := s.lostErr(); lost != nil {
				return nil, lost
			}
		}
		return o.sess, o.err
	case <-timer.C:
		go func() {
			if o := <-ch; o.sess != nil {
				o.sess.Close()
			}
		}()
		return nil, fmt.Errorf("opening an SSH session took longer than %s (SessionTimeout): the host is overloaded or gone, or sshd's MaxSessions is reached", s.sessionTimeout)
	}
}
