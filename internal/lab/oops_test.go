package lab

import (
	"os"
	"strings"
	"testing"
)

func TestOopsOnARealConsole(t *testing.T) {
	console, err := os.ReadFile("testdata/sysrq-crash-bookworm.console")
	if err != nil {
		t.Fatal(err)
	}
	got := Oops(console)
	lines := strings.Split(got, "\n")
	if !strings.HasSuffix(lines[0], "Kernel panic - not syncing: sysrq triggered crash") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(got, "Call Trace:") || !strings.Contains(got, "sysrq_handle_crash+0x16/0x20") {
		t.Errorf("call trace missing:\n%s", got)
	}
	if strings.Contains(got, "\r") || !strings.Contains(lines[len(lines)-1], "Kernel Offset:") {
		t.Errorf("last line %q (the console ends there)", lines[len(lines)-1])
	}
	// Everything before the crash report is boot noise, not quoted.
	before, _, _ := strings.Cut(strings.ReplaceAll(string(console), "\r", ""), lines[0])
	if Oops([]byte(before)) != "" {
		t.Errorf("an oops found in the boot messages: %q", Oops([]byte(before)))
	}
}
