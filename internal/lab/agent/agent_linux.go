package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rocekit/rocekit/internal/lab"
)

// Main is the guest's init: it prepares the system, runs the plan,
// reports, and powers the guest off. It never returns.
func Main() {
	start := time.Now()
	if err := mountBasics(); err != nil {
		console("mount: %v", err)
	}
	os.Setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
	os.Setenv("HOME", "/root")
	// Drivers for the result channel and the NICs; built-in ones succeed too.
	for _, m := range []string{"virtio_pci", "virtio_console", "virtio_net"} {
		if out, err := exec.Command("modprobe", m).CombinedOutput(); err != nil {
			console("modprobe %s: %v: %s", m, err, out)
		}
	}
	if err := run(start); err != nil {
		console("agent: %v", err)
	}
	powerOff()
}

func run(start time.Time) error {
	port, err := openPort(20 * time.Second)
	if err != nil {
		return err
	}
	defer port.Close()
	w := &syncWriter{rw: lab.NewRecordWriter(port)}

	plan, err := readPlan()
	if err != nil {
		w.log("read plan: %v", err)
		return w.send(lab.KindDone, -1, nil)
	}
	env := append(os.Environ(), plan.Env...)
	env = append(env, lab.EnvInLab+"=1")
	if name := lookupEnv(env, lab.EnvGuest); name != "" {
		unix.Sethostname([]byte(name))
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		w.log("ip link set lo up: %v: %s", err, out)
	}
	w.sendJSON(lab.KindHello, -1, hello(start))
	for _, m := range plan.Modules {
		if out, err := exec.Command("modprobe", m).CombinedOutput(); err != nil {
			w.log("modprobe %s: %v: %s", m, err, strings.TrimSpace(string(out)))
		}
	}
	for i, s := range plan.Steps {
		w.sendJSON(lab.KindStart, i, s)
		w.sendJSON(lab.KindExit, i, runStep(i, s, env, w))
	}
	if plan.Collect != "" {
		if err := sendFiles(plan.Collect, w); err != nil {
			w.log("collect %s: %v", plan.Collect, err)
		}
	}
	return w.send(lab.KindDone, -1, nil)
}

// runStep runs one program in its own process group and streams its output.
func runStep(i int, s lab.Step, env []string, w *syncWriter) lab.ExitStatus {
	ctx := context.Background()
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

	outR, outW, err := os.Pipe()
	if err != nil {
		return lab.ExitStatus{Code: -1, Error: err.Error()}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return lab.ExitStatus{Code: -1, Error: err.Error()}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	began := time.Now()
	startErr := cmd.Start()
	outW.Close()
	errW.Close()
	var readers sync.WaitGroup
	readers.Add(2)
	go w.stream(&readers, outR, lab.KindStdout, i)
	go w.stream(&readers, errR, lab.KindStderr, i)
	if startErr != nil {
		readers.Wait()
		return lab.ExitStatus{Code: -1, Error: startErr.Error()}
	}
	waitErr := cmd.Wait()
	// Once the group is gone the pipes close; a process that left the group
	// could hold them open, so give up on it after a moment.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if !waitTimeout(&readers, 2*time.Second) {
		outR.Close()
		errR.Close()
		readers.Wait()
	}
	st := lab.ExitStatus{Code: cmd.ProcessState.ExitCode(), Seconds: time.Since(began).Seconds()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st.Signal = ws.Signal().String()
	}
	st.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		st.Error = waitErr.Error()
	}
	return st
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// sendFiles sends every regular file under dir, in lexical order.
func sendFiles(dir string, w *syncWriter) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			w.log("collect %s: %v", rel, err)
			return nil
		}
		if err := w.send(lab.KindFile, -1, []byte(filepath.ToSlash(rel))); err != nil {
			return err
		}
		return w.send(lab.KindFileData, -1, data)
	})
}

func readPlan() (*lab.Plan, error) {
	data, err := os.ReadFile(lab.PlanPath)
	if err != nil {
		return nil, err
	}
	var p lab.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, p.Validate()
}

func hello(start time.Time) lab.AgentInfo {
	var info lab.AgentInfo
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		info.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	info.Hostname, _ = os.Hostname()
	info.CPUs = countOnlineCPUs()
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		info.MemMiB = int(uint64(si.Totalram) * uint64(si.Unit) >> 20)
	}
	if b, err := os.ReadFile("/proc/uptime"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			info.UptimeS, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	return info
}

func countOnlineCPUs() int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0
	}
	return set.Count()
}

func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// openPort waits for the virtio serial port named lab.PortName and opens it.
// Without udev there is no /dev/virtio-ports link; the name is in sysfs.
func openPort(wait time.Duration) (*os.File, error) {
	deadline := time.Now().Add(wait)
	for {
		names, _ := filepath.Glob("/sys/class/virtio-ports/*/name")
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil || strings.TrimSpace(string(b)) != lab.PortName {
				continue
			}
			dev := "/dev/" + filepath.Base(filepath.Dir(n))
			f, err := os.OpenFile(dev, os.O_WRONLY, 0)
			if err == nil {
				return f, nil
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("open %s: %w", dev, err)
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no virtio port named %q after %v", lab.PortName, wait)
		}
		time.Sleep(20 * time.Millisecond) // polling sysfs: there is no event without udev
	}
}

func mountBasics() error {
	var errs []error
	for _, m := range []struct{ src, dst, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
		{"devpts", "/dev/pts", "devpts"},
		{"tmpfs", "/tmp", "tmpfs"},
		{"tmpfs", "/run", "tmpfs"},
	} {
		os.MkdirAll(m.dst, 0o755)
		if err := unix.Mount(m.src, m.dst, m.fstype, 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			errs = append(errs, fmt.Errorf("%s: %w", m.dst, err))
		}
	}
	os.MkdirAll("/run/netns", 0o755)
	return errors.Join(errs...)
}

func powerOff() {
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	// Only reached when not PID 1 (a test run by hand).
	os.Exit(1)
}

// console writes a diagnostic line to the kernel console (the serial log).
func console(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rocekit-agent: "+format+"\n", args...)
}

// syncWriter serialises records from the output readers of a step.
type syncWriter struct {
	mu sync.Mutex
	rw *lab.RecordWriter
}

func (w *syncWriter) send(kind lab.RecordKind, step int, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rw.Write(lab.Record{Kind: kind, Step: step, Data: data})
}

func (w *syncWriter) sendJSON(kind lab.RecordKind, step int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		w.log("encode %s: %v", kind, err)
		return
	}
	w.send(kind, step, data)
}

func (w *syncWriter) log(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	console("%s", msg)
	w.send(lab.KindLog, -1, []byte(msg))
}

// stream copies a step's output into records as it arrives.
func (w *syncWriter) stream(wg *sync.WaitGroup, r io.ReadCloser, kind lab.RecordKind, step int) {
	defer wg.Done()
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.send(kind, step, buf[:n])
		}
		if err != nil {
			return
		}
	}
}
