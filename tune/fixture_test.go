package tune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/sysroot"
)

// irqFixture is a fake /proc and /sys with IRQs 27 and 28 (affinity 0-3),
// CPUs 0-3 online, and cpufreq on CPUs 0 and 1 (governor schedutil).
type irqFixture struct {
	dir  string
	opts Options
	orig map[string]string
}

func newIRQFixture(t *testing.T) *irqFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &irqFixture{dir: dir, opts: Options{Root: sysroot.ProcSys(filepath.Join(dir, "proc"), filepath.Join(dir, "sys"))},
		orig: map[string]string{
			"proc/irq/27/smp_affinity_list":                                   "0-3",
			"proc/irq/28/smp_affinity_list":                                   "0-3",
			"sys/devices/system/cpu/online":                                   "0-3",
			"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor":            "schedutil",
			"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor":            "schedutil",
			"sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors": "performance schedutil",
			"sys/devices/system/cpu/cpu1/cpufreq/scaling_available_governors": "performance schedutil",
		}}
	for name, content := range fx.orig {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fx
}

func (fx *irqFixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func (fx *irqFixture) want(t *testing.T, name, want string) {
	t.Helper()
	if got := fx.read(t, name); got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}

// wantOriginal checks every file, one by one, against its first content.
func (fx *irqFixture) wantOriginal(t *testing.T) {
	t.Helper()
	for name, content := range fx.orig {
		fx.want(t, name, content)
	}
}

func (fx *irqFixture) mtimes(t *testing.T) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for name := range fx.orig {
		st, err := os.Stat(filepath.Join(fx.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = st.ModTime()
	}
	return out
}
