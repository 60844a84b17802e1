package irq

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLoadSampler runs the sampler on a fixture tree whose files are
// swapped from the trixie traffic pair's "before" to its "after" while it
// runs: the report must show that pair's load and name CPU1.
func TestLoadSampler(t *testing.T) {
	fs, dir := copyTree(t, "trixie/traffic/before")
	ctx := context.Background()
	s, err := fs.StartLoadSampler(ctx, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"stat", "softirqs", "net/softnet_stat"} {
		b := readFixture(t, "trixie/traffic/after/proc/"+f)
		tmp := filepath.Join(dir, "proc", f+".new")
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "proc", f)); err != nil {
			t.Fatal(err)
		}
	}
	// Wait (polling, bounded) until a snapshot after the swap was taken.
	deadline := time.Now().Add(10 * time.Second)
	for s.Report().Overall.All.NetRX != 1188 {
		if time.Now().After(deadline) {
			t.Fatalf("sampler never saw the new files: %+v", s.Report().Overall.All)
		}
		time.Sleep(time.Millisecond)
	}
	r := s.Stop()
	if r.Hot.CPU != 1 || r.Hot.String() != "CPU1 12% soft" || r.Peak.CPU != 1 || r.Peak.String() != "CPU1 12% soft" {
		t.Errorf("Hot %s, Peak %s", r.Hot, r.Peak)
	}
	if len(r.Intervals) < 2 || len(r.Errors) != 0 {
		t.Errorf("%d intervals, errors %v", len(r.Intervals), r.Errors)
	}
	if r.Overall.All.TimeSqueeze != 58 {
		t.Errorf("time_squeeze %d, want 58", r.Overall.All.TimeSqueeze)
	}
	if r2 := s.Stop(); r2.Hot != r.Hot || len(r2.Intervals) != len(r.Intervals) {
		t.Error("second Stop differs")
	}
}

// TestLoadSamplerContext: the sampler stops with its context, and keeps
// going past a failed snapshot.
func TestLoadSamplerContext(t *testing.T) {
	fs, dir := copyTree(t, "trixie/traffic/before")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := fs.StartLoadSampler(ctx, 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "proc", "stat"), filepath.Join(dir, "proc", "stat.gone"))
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Report().Errors) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no snapshot error seen")
		}
		time.Sleep(time.Millisecond)
	}
	os.Rename(filepath.Join(dir, "proc", "stat.gone"), filepath.Join(dir, "proc", "stat"))
	cancel()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("sampler did not stop with its context")
	}
	r := s.Report()
	if len(r.Errors) == 0 || len(r.Intervals) == 0 || r.Hot.CPU != -1 {
		t.Errorf("errors %v, %d intervals, hot %s", r.Errors, len(r.Intervals), r.Hot)
	}

	if _, err := fs.StartLoadSampler(context.Background(), 0); err == nil {
		t.Error("interval 0 accepted")
	}
	if _, err := fixtureFS(t, "odd").StartLoadSampler(context.Background(), time.Second); err == nil {
		t.Error("a tree without /proc/stat started")
	}
}
