package main

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/runbook"
)

// TestDocListsOperations: the command's doc comment shows the usage line
// of every operation of runbook's table, in its order, and no other; the
// README's layout row names each.
func TestDocListsOperations(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var doc []string
	for _, l := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(l, "\trocekit-peer ") && !strings.Contains(l, "-protocol") {
			doc = append(doc, strings.TrimPrefix(l, "\t"))
		}
	}
	var b strings.Builder
	runbook.WritePeerUsage(&b, "rocekit-peer")
	want := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i := range want {
		want[i] = strings.TrimPrefix(want[i], "  ")
	}
	if strings.Join(doc, "\n") != strings.Join(want, "\n") {
		t.Errorf("doc comment lists:\n%s\nthe table:\n%s", strings.Join(doc, "\n"), strings.Join(want, "\n"))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `cmd/rocekit-peer` |") {
			row = l
		}
	}
	for _, o := range runbook.PeerOperations() {
		if !strings.Contains(row, "`"+o.Name+"`") {
			t.Errorf("README's cmd/rocekit-peer row does not name %s", o.Name)
		}
	}
}
