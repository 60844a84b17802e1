// Package host is where rocekit's commands run, and the only package of
// rocekit that starts processes. It replaces the runbooks' "ssh host cmd &",
// "ip netns exec" and "sleep 1" with a Runner:
//
//   - Local: this host; each process leads its own process group, killed
//     whole with SIGKILL when the context ends (and by PDEATHSIG if the
//     caller dies).
//   - Netns: a named network namespace, through "ip netns exec".
//   - SSH: another host over golang.org/x/crypto/ssh, host keys checked
//     against known_hosts, every argument quoted; the remote process group
//     is killed on cancel too.
//   - Fake: scripted outputs, exit codes and delays for unit tests of the
//     layers above, recording each argv it was given.
//
// A started Process gives its PID, its standard output and error as lines
// while they arrive (Output.Lines, Cmd.OnStdout) and whole (Output.Bytes),
// its ExitStatus and Wait(ctx). Failures are typed: *StartError (with
// exec.ErrNotFound for a missing binary), *ExitError (with the tail of
// standard error, and the context's cause when rocekit killed the
// process), *HostKeyError.
//
// Readiness is polled, never slept for and never probed by connecting (a
// perftest server accepts exactly one connection): WaitListening and
// WaitProcessListening read /proc/net/tcp and tcp6 of the target namespace
// until the port is in LISTEN state, and WaitProcessListening also wants
// the socket among the process's own files, so that a server that cannot
// bind a busy port is not taken for ready. ParseTCPTable parses those files.
//
// Start a server, wait until it listens, run the client, stop the server:
//
//	ctx, cancel := context.WithTimeout(ctx, time.Minute)
//	defer cancel()
//	srv, err := r.Start(ctx, host.Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0"}, LineBuffered: true})
//	if err != nil {
//		return err // errors.Is(err, exec.ErrNotFound): perftest is not installed
//	}
//	defer srv.Kill()
//	if err := host.WaitProcessListening(ctx, srv, 18515); err != nil {
//		return err // the server exited (its *ExitError is wrapped) or ctx ended
//	}
//	cli, err := host.Run(ctx, r, host.Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0", "127.0.0.1"}, LineBuffered: true})
//	if err != nil {
//		return err // *ExitError: exit code, signal, stderr tail
//	}
//	fmt.Print(cli.Stdout().String())
//	return srv.Wait(ctx)
//
// Standard output is block-buffered by C programs writing into a pipe; set
// Cmd.LineBuffered to run them under "stdbuf -oL -eL" when their lines are
// wanted as they come.
package host
