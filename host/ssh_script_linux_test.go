package host

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// runWrapper runs the SSH wrapper line the way sshd does ($SHELL -c LINE),
// with the login shell leading its own process group (as after sshd's
// setsid) or not, and returns the wrapper's report and the rest of stdout.
func runWrapper(t *testing.T, shell string, leader bool, c Cmd) (remoteStart, string) {
	t.Helper()
	cmd := exec.Command(shell, "-c", remoteCommand("n0nce", c))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: leader}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	br := bufio.NewReader(bytes.NewReader(out))
	rs, err := readRemoteStart(br, "n0nce")
	if err != nil {
		t.Fatalf("%s: %v; stdout %q stderr %q", shell, err, out, stderr.String())
	}
	rest, _ := br.ReadString(0)
	return rs, rest
}

func TestRemoteWrapper(t *testing.T) {
	printPIDs := `echo "$$ $(cut -d' ' -f5 /proc/$$/stat)"`
	for _, shell := range []string{"/bin/sh", "bash", "dash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		for _, leader := range []bool{true, false} {
			// The reported PID is the command's (exec in place) and leads its group.
			rs, out := runWrapper(t, shell, leader, Cmd{Argv: []string{"sh", "-c", printPIDs}})
			f := strings.Fields(out)
			if len(f) != 2 || f[0] != strconv.Itoa(rs.pid) || f[1] != f[0] {
				t.Errorf("%s leader=%v: reported pid %d, command printed pid and pgid %q", shell, leader, rs.pid, out)
			}
		}
		dir := t.TempDir()
		for _, arg := range trickyArgs {
			_, out := runWrapper(t, shell, true, Cmd{
				Argv: []string{"sh", "-c", `printf '%s|%s|' "$1" "$ROCEKIT_V"; pwd`, "sh", arg},
				Env:  []string{"ROCEKIT_V=" + arg, "ROCEKIT_W=x"},
				Dir:  dir,
			})
			if want := arg + "|" + arg + "|" + dir + "\n"; out != want {
				t.Errorf("%s: got %q, want %q", shell, out, want)
			}
		}
		if rs, _ := runWrapper(t, shell, true, Cmd{Argv: []string{"rocekit-no-such-binary"}}); rs.notFound == "" || rs.pid != 0 {
			t.Errorf("%s: missing binary reported as %+v", shell, rs)
		}
	}
}

// Lines a login script prints before the wrapper's are skipped.
func TestReadRemoteStartSkipsNoise(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("motd\nrocekit-other pid 1\nrocekit-n0nce pid 4242\nprogram output\n"))
	rs, err := readRemoteStart(br, "n0nce")
	if err != nil || rs.pid != 4242 {
		t.Fatalf("%+v %v", rs, err)
	}
	if rest, _ := br.ReadString('\n'); rest != "program output\n" {
		t.Errorf("rest %q", rest)
	}
	if _, err := readRemoteStart(bufio.NewReader(strings.NewReader("cd: no such dir\n")), "n0nce"); err == nil {
		t.Error("no report, no error")
	}
}
