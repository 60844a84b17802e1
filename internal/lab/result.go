package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// StepResult is what one step produced inside the guest.
type StepResult struct {
	Step   Step
	Stdout []byte
	Stderr []byte
	Exit   ExitStatus
	// Finished is false when the guest stopped before the step's exit
	// record arrived (deadline, crash); Stdout and Stderr then hold what
	// arrived before.
	Finished bool
	// Started is true once the agent reported that the step began.
	Started bool
}

// Result is everything a guest reported, kept even when the run failed.
type Result struct {
	Guest string
	Agent AgentInfo
	Steps []StepResult
	// Files holds the collected files by path relative to Plan.Collect.
	Files map[string][]byte
	// Log holds the agent's own messages (module load failures and the like).
	Log []string
	// Done is true when the agent reported that it finished all steps.
	Done bool
	// Console is the guest's serial console (kernel messages), for
	// diagnosis only: results never come from it.
	Console []byte
	// ProtocolErrors lists malformed records that were skipped.
	ProtocolErrors []string
	// BootRetry, when not empty, says why the run was booted a second
	// time: a guest crashed while booting the first time (the error).
	BootRetry string
}

// planStarted reports whether any step of the plan began.
func (r *Result) planStarted() bool {
	for _, s := range r.Steps {
		if s.Started {
			return true
		}
	}
	return false
}

// OK reports whether the agent finished and every step exited 0.
func (r *Result) OK() bool {
	if !r.Done {
		return false
	}
	for _, s := range r.Steps {
		if !s.Finished || !s.Exit.OK() {
			return false
		}
	}
	return true
}

// collector turns the agent's records into a Result.
type collector struct {
	res  *Result
	file string // the file whose data records are arriving
	live io.Writer
	// done is closed when the agent reports the end of its plan.
	done     chan struct{}
	doneSeen bool
}

func newCollector(res *Result, plan *Plan, live io.Writer) *collector {
	res.Steps = make([]StepResult, len(plan.Steps))
	for i, s := range plan.Steps {
		res.Steps[i].Step = s
	}
	res.Files = map[string][]byte{}
	return &collector{res: res, live: live, done: make(chan struct{})}
}

// add applies one record. An error means the record was malformed and was
// skipped; the collector stays usable.
func (c *collector) add(rec Record) error {
	step := func() (*StepResult, error) {
		if rec.Step < 0 || rec.Step >= len(c.res.Steps) {
			return nil, fmt.Errorf("%w: %s record for step %d of %d", ErrProtocol, rec.Kind, rec.Step, len(c.res.Steps))
		}
		return &c.res.Steps[rec.Step], nil
	}
	switch rec.Kind {
	case KindHello:
		if err := json.Unmarshal(rec.Data, &c.res.Agent); err != nil {
			return fmt.Errorf("%w: hello: %v", ErrProtocol, err)
		}
	case KindLog:
		c.res.Log = append(c.res.Log, string(rec.Data))
		c.echo("agent: %s\n", rec.Data)
	case KindStart:
		s, err := step()
		if err != nil {
			return err
		}
		s.Started = true
		c.echo("=== %s: %s\n", c.res.Guest, s.Step.Name)
	case KindStdout, KindStderr:
		s, err := step()
		if err != nil {
			return err
		}
		if rec.Kind == KindStdout {
			s.Stdout = append(s.Stdout, rec.Data...)
		} else {
			s.Stderr = append(s.Stderr, rec.Data...)
		}
		if c.live != nil {
			c.live.Write(rec.Data)
		}
	case KindExit:
		s, err := step()
		if err != nil {
			return err
		}
		if err := json.Unmarshal(rec.Data, &s.Exit); err != nil {
			return fmt.Errorf("%w: exit: %v", ErrProtocol, err)
		}
		s.Finished = true
		c.echo("--- %s: %s: %s\n", c.res.Guest, s.Step.Name, s.Exit)
	case KindFile:
		name := string(rec.Data)
		if !validCollectedName(name) {
			c.file = ""
			return fmt.Errorf("%w: unsafe collected file name %q", ErrProtocol, name)
		}
		c.file = name
		c.res.Files[name] = []byte{}
	case KindFileData:
		if c.file == "" {
			return fmt.Errorf("%w: file data without a file record", ErrProtocol)
		}
		c.res.Files[c.file] = append(c.res.Files[c.file], rec.Data...)
	case KindDone:
		c.res.Done = true
		if !c.doneSeen {
			c.doneSeen = true
			close(c.done)
		}
	}
	return nil
}

func (c *collector) echo(format string, args ...any) {
	if c.live != nil {
		fmt.Fprintf(c.live, format, args...)
	}
}

// validCollectedName accepts a clean relative path that stays inside the
// destination folder.
func validCollectedName(name string) bool {
	return name != "" && name == path.Clean(name) && !path.IsAbs(name) &&
		name != ".." && !strings.HasPrefix(name, "../")
}

// readRecords feeds every record of r into c until the stream ends. It
// returns nil at a clean end; a torn last line is recorded as a protocol
// error, since the guest may die mid-write.
func (c *collector) readRecords(r io.Reader) error {
	rr := NewRecordReader(r)
	for {
		rec, err := rr.Next()
		switch {
		case err == nil:
			if aerr := c.add(rec); aerr != nil {
				c.res.ProtocolErrors = append(c.res.ProtocolErrors, aerr.Error())
			}
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, ErrProtocol), errors.Is(err, io.ErrUnexpectedEOF):
			c.res.ProtocolErrors = append(c.res.ProtocolErrors, err.Error())
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
		default:
			return err
		}
	}
}
