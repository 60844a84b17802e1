package runbook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/tune"
)

// A session (protocol 7, Peer.KeepAgent) is one agent for all of a
// Peer's calls: "rocekit-peer serve" reads requests on its standard input,
// a JSON object a line, and answers each on its standard output under the
// request's id. A call then costs a line each way instead of a new SSH
// session and the start of a process, which in the lab's emulated guests
// is seconds of CPU.

// peerRequest is one line of a session's input: a call, or the end of
// one (Cancel).
type peerRequest struct {
	ID      uint64          `json:"id"`
	Op      string          `json:"op,omitempty"`
	Arg     json.RawMessage `json:"arg,omitempty"`
	Timeout time.Duration   `json:"timeout_ns,omitempty"`
	Cancel  bool            `json:"cancel,omitempty"`
}

// maxPeerRequestBytes bounds one request line on the agent.
const maxPeerRequestBytes = 1 << 20

// sessionOp names the session itself in its errors and on the wire.
const sessionOp = "serve"

// ServePeerSession is the agent's side of a Peer that keeps its agent
// (rocekit-peer serve): it says it serves (a first line with
// "session":true), then runs each request read from in as ServePeer
// would (one journal each), concurrently, and writes each reply to out
// with the request's id. It returns when in ends (the near side closed the
// session, or its connection is gone) or ctx does, once the calls under
// way have been ended and have replied. exec is refused: it replaces the
// agent's process, so it runs as a call of its own.
func ServePeerSession(ctx context.Context, protocol int, journalDir, netns string, in io.Reader, out io.Writer) error {
	var wmu sync.Mutex
	write := func(r peerReply) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writeReply(out, r)
	}
	if err := checkProtocol(protocol); err != nil {
		return errors.Join(err, write(peerReply{Error: faultOf(sessionOp, err)}))
	}
	if err := write(peerReply{Session: true}); err != nil {
		return err
	}
	ctx, endAll := context.WithCancel(ctx)
	defer endAll()
	var (
		wg    sync.WaitGroup
		cmu   sync.Mutex
		calls = map[uint64]context.CancelFunc{}
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxPeerRequestBytes)
	for sc.Scan() && ctx.Err() == nil {
		var q peerRequest
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil || q.ID == 0 {
			_ = write(peerReply{Error: faultOf(sessionOp, fmt.Errorf("%w: not a session request: %.80q", tune.ErrInvalidInput, sc.Text()))})
			continue
		}
		if q.Cancel {
			cmu.Lock()
			if end := calls[q.ID]; end != nil {
				end()
			}
			cmu.Unlock()
			continue
		}
		timeout := q.Timeout
		if timeout <= 0 {
			timeout = DefaultPeerSlowCallTimeout
		}
		cctx, end := context.WithTimeout(ctx, timeout)
		cmu.Lock()
		calls[q.ID] = end
		cmu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				cmu.Lock()
				delete(calls, q.ID)
				cmu.Unlock()
				end()
			}()
			var res any
			var err error
			if q.Op == "exec" {
				err = fmt.Errorf("%w: exec replaces the agent's process: it is a call of its own, not one of a session", tune.ErrInvalidInput)
			} else {
				ready := func() { _ = write(peerReply{ID: q.ID, Ready: true}) } // a lost line only delays the caller
				res, err = servePeer(cctx, journalDir, netns, q.Op, string(q.Arg), ready)
			}
			r := replyOf(q.Op, res, err)
			r.ID = q.ID
			_ = write(r)
		}()
	}
	endAll()
	wg.Wait()
	return sc.Err()
}

// peerSession is the near side of a session: the agent's input, the
// calls waiting for their replies, and how the agent ended.
type peerSession struct {
	in    *io.PipeWriter
	proc  *host.Process
	hello chan string   // the agent's first line
	ended chan struct{} // closed once the agent has exited; err says why

	max int // Peer.MaxReplyBytes: a longer line ends the session

	wmu      sync.Mutex // one request line at a time
	mu       sync.Mutex // the fields below
	next     uint64
	calls    map[uint64]*sessionCall
	err      error
	tooLarge bool          // the agent wrote a line longer than max
	started  *host.Process // the agent, once Start has returned
	lastCPU  int64         // the agent's own CPU in its latest reply
}

// sessionCall is one call waiting in a session.
type sessionCall struct {
	see   func(line string) // its progress lines
	reply chan string       // its reply line
}

// line takes one line of the agent's output to the call it belongs to.
// A line longer than the reply bound (host splits it there) cannot be
// told apart from the call it answers: the agent is killed, and each
// call waiting in the session fails with a *PeerReplyTooLargeError.
func (s *peerSession) line(line string) {
	if len(line) > s.max {
		s.mu.Lock()
		first, proc := !s.tooLarge, s.started
		s.tooLarge = true
		s.mu.Unlock()
		if first && proc != nil {
			go proc.Kill()
		}
		return
	}
	var r struct {
		ID      uint64 `json:"id"`
		Ready   bool   `json:"ready"`
		Session bool   `json:"session"`
	}
	if json.Unmarshal([]byte(line), &r) != nil {
		return
	}
	if r.ID == 0 {
		select {
		case s.hello <- line: // the first line, or a refusal
		default:
		}
		return
	}
	s.mu.Lock()
	c := s.calls[r.ID]
	if c != nil && !r.Ready {
		delete(s.calls, r.ID)
	}
	s.mu.Unlock()
	switch {
	case c == nil:
	case r.Ready:
		if c.see != nil {
			c.see(line)
		}
	default:
		c.reply <- line // buffered: one reply a call
	}
}

// send writes one request line.
func (s *peerSession) send(q peerRequest) error {
	b, err := json.Marshal(q)
	if err != nil {
		return err
	}
	s.mu.Lock()
	err = s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// add registers a call and returns its id.
func (s *peerSession) add(c *sessionCall) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.calls[s.next] = c
	return s.next
}

// forget drops a call that will not wait for its reply any more.
func (s *peerSession) forget(id uint64) {
	s.mu.Lock()
	delete(s.calls, id)
	s.mu.Unlock()
}

// addCPU counts the agent's CPU since its previous reply: a session's
// replies carry its whole life's.
func (s *peerSession) addCPU(ns int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ns > s.lastCPU {
		agentCPU.Add(ns - s.lastCPU)
		s.lastCPU = ns
	}
}

// close ends the session: the agent reads the end of its input and exits
// once its calls have replied; one that does not within wait is killed.
func (s *peerSession) close(wait time.Duration) {
	s.in.Close()
	select {
	case <-s.ended:
	case <-time.After(wait):
		_ = s.proc.Kill()
		<-s.ended
	}
}

// endErr is the error of a call of op that the session's end cut off.
func (s *peerSession) endErr(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tooLarge {
		return &PeerError{Op: op, Err: &PeerReplyTooLargeError{Op: op, Max: s.max}}
	}
	return &PeerError{Op: op, Err: s.err}
}

// session returns the Peer's session, starting the agent when there is
// none or the last one ended; op is the call that needs it, named in the
// errors of the start.
func (p *Peer) session(ctx context.Context, op string, timeout time.Duration) (*peerSession, error) {
	p.sessMu.Lock()
	defer p.sessMu.Unlock()
	if s := p.sess; s != nil {
		select {
		case <-s.ended:
		default:
			return s, nil
		}
	}
	agent, dir := p.agentAndDir()
	pr, pw := io.Pipe()
	s := &peerSession{in: pw, hello: make(chan string, 1), ended: make(chan struct{}), calls: map[uint64]*sessionCall{}, max: p.maxReply()}
	// The agent outlives the call that starts it: Close ends it.
	proc, err := p.runner().Start(context.WithoutCancel(ctx), host.Cmd{
		Argv:  []string{agent, "-protocol", fmt.Sprint(PeerProtocol), "-journal-dir", dir, "-netns", p.Netns, sessionOp},
		Stdin: pr, OnStdout: s.line, MaxOutputBytes: 64 << 10, MaxLineBytes: s.max + 1})
	if err != nil {
		pw.Close()
		return nil, &PeerError{Op: op, Err: fmt.Errorf("starting the agent's session: %w", err)}
	}
	s.proc = proc
	s.mu.Lock()
	s.started = proc
	killNow := s.tooLarge
	s.mu.Unlock()
	if killNow {
		_ = proc.Kill()
	}
	go func() {
		werr := proc.Wait(context.Background())
		pw.CloseWithError(io.ErrClosedPipe)
		s.mu.Lock()
		s.err = fmt.Errorf("the agent's session ended (%v): %s", werr, tailString(proc.Stdout().Bytes(), proc.Stderr().Bytes()))
		s.mu.Unlock()
		close(s.ended)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var hello string
	select {
	case hello = <-s.hello:
	case <-s.ended:
		select {
		case hello = <-s.hello:
		default:
			return nil, s.endErr(op)
		}
	case <-t.C:
		s.close(0)
		return nil, &PeerError{Op: op, Err: fmt.Errorf("starting the agent's session: %w", &PeerTimeoutError{Op: op, Timeout: timeout})}
	case <-ctx.Done():
		s.close(0)
		return nil, &PeerError{Op: op, Err: context.Cause(ctx)}
	}
	cpu, err := decodeReply(sessionOp, []byte(hello), proc.Stderr().Bytes(), nil)
	var r peerReply
	if err == nil && (json.Unmarshal([]byte(hello), &r) != nil || !r.Session) {
		err = &PeerError{Op: sessionOp, Msg: fmt.Sprintf("the agent did not open a session (%.200q)", hello)}
	}
	if err != nil {
		s.close(time.Second)
		return nil, err
	}
	s.addCPU(cpu) // its start-up
	p.sess = s
	return s, nil
}

// sessionCall runs one call in the Peer's session: callSeeing's way
// when KeepAgent is set.
func (p *Peer) sessionCall(ctx context.Context, op string, arg []byte, out any, see func(line string)) error {
	timeout := p.callTimeout(op)
	s, err := p.session(ctx, op, timeout)
	if err != nil {
		return err
	}
	c := &sessionCall{see: see, reply: make(chan string, 1)}
	id := s.add(c)
	if err := s.send(peerRequest{ID: id, Op: op, Arg: arg, Timeout: timeout}); err != nil {
		s.forget(id)
		return &PeerError{Op: op, Err: err}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	end := func(err error) error {
		s.forget(id)
		_ = s.send(peerRequest{ID: id, Cancel: true})
		return &PeerError{Op: op, Err: err}
	}
	select {
	case line := <-c.reply:
		cpu, err := decodeReply(op, []byte(line), nil, out)
		s.addCPU(cpu)
		return err
	case <-s.ended:
		return s.endErr(op)
	case <-t.C:
		return end(&PeerTimeoutError{Op: op, Timeout: timeout})
	case <-ctx.Done():
		return end(context.Cause(ctx))
	}
}
