package main

import (
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"-list", "-only", "^netperf/udp-stream"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	want := "netperf/udp-stream\nnetperf/udp-stream-loss\nnetperf/udp-stream-default\nnetperf/udp-stream-k\nnetperf/udp-stream-cpu\n"
	if stdout.String() != want {
		t.Errorf("-list printed\n%s\nwant\n%s", stdout.String(), want)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-only", "("},
		{"-list", "extra"},
		{"-no-such-flag"},
		{"-suite", "x"}, // no -out
	} {
		var stdout, stderr strings.Builder
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
}
