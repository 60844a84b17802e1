package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNoAllocation means an Srun has no Slurm job to run its steps in: no
// JobID was given and SLURM_JOB_ID is not set (the caller runs outside
// salloc, sbatch or srun). srun would then ask for a new allocation per
// command, which is never what a fleet wants.
var ErrNoAllocation = errors.New("host: not inside a Slurm allocation (no SLURM_JOB_ID): run under salloc or sbatch, or give Srun.JobID")

// Srun runs each command as one task of a new job step on one node of a
// Slurm allocation, so that programs reach the compute nodes through
// slurmd without SSH between them:
//
//	srun --jobid=J --nodelist=NODE --nodes=1 --ntasks=1 --overlap --input=none
//	     --export=ALL --job-name=rocekit-PROG -- /bin/sh -c WRAPPER ... PROG ARGS
//
// --overlap (Slurm 20.11 and later) lets the step share the node with the
// other steps of the job (a pair's server and client, the agent's calls
// while a test runs); without it the second step waits for the first.
// The wrapper is the same /bin/sh script SSH runs: it changes to Dir,
// exports Env, adds stdbuf (LineBuffered) and taskset (CPUs), reports the
// task's PID (for WaitProcessListening, which reads /proc/PID/net/tcp on
// the node through another step) and a missing program, which fails
// Start with exec.ErrNotFound as on the other runners.
//
// Output streams line by line as srun forwards it; --unbuffered is not
// used, since it runs the task on a pseudo-terminal (merging the streams'
// ordering, adding carriage returns). Standard input is /dev/null
// (--input=none): Cmd has no input to carry.
//
// The exit status is srun's: the task's exit code, or 128+N when the task
// was killed by signal N, which Srun reports as that signal (a task that
// exits with code 129 to 192 by itself reads the same); srun's own
// failures (no such node, the job ended) exit 1 with srun's message on
// standard error.
//
// Signals go to the local srun, which forwards them to the task, except
// SIGINT: srun takes a single one as a request for status, so SIGINT is
// sent twice, 100 ms apart, which srun forwards to the task and follows
// with its termination sequence (SIGCONT, SIGTERM, SIGKILL to the step).
// Kill and the end of the context do the same, then SIGKILL srun itself
// after KillGrace if it has not ended by then: the step is then left to
// slurmd, which ends it when it notices srun is gone.
//
// Similar to: srun --overlap --nodelist=NODE -N1 -n1 PROG ARGS
type Srun struct {
	// Node is the node the task runs on (--nodelist), one of the job's.
	Node string
	// JobID is the job whose allocation the steps run in (--jobid); empty
	// means the caller's own job (SLURM_JOB_ID, as salloc and sbatch set
	// it).
	JobID string
	// Program is srun's path or name; empty means "srun" from PATH.
	Program string
	// Args are further srun options, put before the command ("--mpi=none",
	// "--cpu-bind=none").
	Args []string
	// KillGrace is how long Kill waits after the two SIGINTs before it
	// kills srun; 0 means DefaultSrunKillGrace.
	KillGrace time.Duration
}

// DefaultSrunKillGrace is Srun's KillGrace when none is given: slurmd's
// own KillWait is 30 s, but srun ends its step within a few seconds of
// the second SIGINT.
const DefaultSrunKillGrace = 5 * time.Second

// srunIntervalSIGINT separates the two SIGINTs: srun counts two within one
// second, and a second signal sent before the first was handled merges
// into it.
const srunIntervalSIGINT = 100 * time.Millisecond

// String returns "srun NODE" or "srun NODE job J".
func (s Srun) String() string {
	if s.JobID != "" {
		return "srun " + s.Node + " job " + s.JobID
	}
	return "srun " + s.Node
}

// TCPSockets lists the TCP sockets of the node (its initial network
// namespace), read by a step of its own.
//
// Similar to: srun --overlap --nodelist=NODE cat /proc/net/tcp /proc/net/tcp6
func (s Srun) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	return s.tcpTable(ctx, 0)
}

func (s Srun) tcpTable(ctx context.Context, pid int) ([]TCPSocket, error) {
	p, err := Run(ctx, s, Cmd{Argv: tcpTableCommand(pid)})
	if err != nil {
		return nil, err
	}
	return ParseTCPTable(strings.NewReader(p.Stdout().String()))
}

// jobID returns the job the steps run in, or ErrNoAllocation.
func (s Srun) jobID() (string, error) {
	if s.JobID != "" {
		return s.JobID, nil
	}
	if j := os.Getenv("SLURM_JOB_ID"); j != "" {
		return j, nil
	}
	return "", ErrNoAllocation
}

// argv returns srun's command line for c, whose wrapper reports nonce.
func (s Srun) argv(job, nonce string, c Cmd) []string {
	prog := s.Program
	if prog == "" {
		prog = "srun"
	}
	name := "rocekit-" + filepath.Base(c.Argv[0])
	out := []string{prog, "--jobid=" + job, "--nodelist=" + s.Node, "--nodes=1", "--ntasks=1",
		"--overlap", "--input=none", "--export=ALL", "--job-name=" + name}
	out = append(out, s.Args...)
	out = append(out, "--", "/bin/sh", "-c", remoteScript, "rocekit")
	return append(out, wrapperArgs(nonce, c)...)
}

// wrapperArgs are remoteScript's arguments for c.
func wrapperArgs(nonce string, c Cmd) []string {
	buf := "0"
	if c.LineBuffered {
		buf = "1"
	}
	args := append([]string{nonce, c.Dir, strconv.Itoa(len(c.Env)), buf, cpuList(c.CPUs)}, c.Env...)
	return append(args, c.Argv...)
}

// srunStatus turns srun's exit code into the task's status: 128+N is
// signal N.
func srunStatus(st ExitStatus) ExitStatus {
	if st.Signal == 0 && st.Code > 128 && st.Code <= 128+64 {
		return ExitStatus{Code: -1, Signal: syscall.Signal(st.Code - 128)}
	}
	return st
}
