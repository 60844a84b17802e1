package host

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdin: a local program reads Cmd.Stdin as it comes (a request,
// then its answer, then the next) and sees its end when Stdin ends; a nil
// Stdin is an empty input.
func TestStdin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	lines := make(chan string, 4)
	p, err := Local{}.Start(ctx, Cmd{Argv: []string{"cat"}, Stdin: pr, OnStdout: func(l string) { lines <- l }})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{"one", "two"} {
		if _, err := io.WriteString(pw, req+"\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-lines:
			if got != req {
				t.Errorf("echoed %q, want %q", got, req)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q not echoed while the input stays open", req)
		}
	}
	pw.Close()
	if err := p.Wait(ctx); err != nil {
		t.Errorf("cat after its input ended: %v", err)
	}
	p, err = Run(ctx, Local{}, Cmd{Argv: []string{"cat"}})
	if err != nil || p.Stdout().String() != "" {
		t.Errorf("cat with no Stdin: %v, %q", err, p.Stdout().String())
	}
	p, err = Run(ctx, Local{}, Cmd{Argv: []string{"cat"}, Stdin: strings.NewReader("whole\n")})
	if err != nil || p.Stdout().String() != "whole\n" {
		t.Errorf("cat of a reader: %v, %q", err, p.Stdout().String())
	}
}
