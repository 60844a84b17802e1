package runbook

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rocekit/rocekit"

// agentSentinels lists, from the source, every exported Err* variable of
// every package of this module that the agent links (runbook and what it
// imports, transitively, internal ones too): the errors an agent can
// return. Each is "pkg.ErrName", pkg the package's name.
func agentSentinels(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
							out = append(out, p.Name+"."+n.Name)
						}
					}
				}
			}
		}
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				walk(filepath.Join("..", filepath.FromSlash(rel)))
			}
		}
	}
	walk(".")
	slices.Sort(out)
	return out
}

// tableSentinels lists the sentinels peer_protocol.go's peerKinds names,
// as written there ("rxe.ErrParse"; "runbook.ErrNoIPv4" for this
// package's own).
func tableSentinels(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "peer_protocol.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || len(v.Names) != 1 || v.Names[0].Name != "peerKinds" {
			return true
		}
		ast.Inspect(v, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := e.X.(*ast.Ident); ok && strings.HasPrefix(e.Sel.Name, "Err") {
					out = append(out, x.Name+"."+e.Sel.Name)
				}
				return false
			case *ast.Ident:
				if strings.HasPrefix(e.Name, "Err") {
					out = append(out, "runbook."+e.Name)
				}
			}
			return true
		})
		return false
	})
	return out
}

// TestEverySentinelCrossesSSH: every exported Err* sentinel of a package
// the agent links, found in the source (so that a new one is caught), is
// in the mapping of peer_protocol.go; and for each entry an error that
// wraps its sentinel on the agent, sent as the agent sends it, reads back
// on the near side as a *PeerError that errors.Is matches to it.
func TestEverySentinelCrossesSSH(t *testing.T) {
	src := agentSentinels(t)
	if len(src) < 40 {
		t.Fatalf("found only %d sentinels in the source: %v", len(src), src)
	}
	table := tableSentinels(t)
	t.Logf("%d sentinels in the agent's packages, %d in the mapping", len(src), len(table))
	for _, s := range src {
		if !slices.Contains(table, s) {
			t.Errorf("%s cannot cross SSH: add it to peerKinds in peer_protocol.go", s)
		}
	}
	kinds := map[string]bool{}
	for _, k := range peerKinds {
		if kinds[k.kind] {
			t.Errorf("kind %q twice", k.kind)
		}
		kinds[k.kind] = true
		far := fmt.Errorf("agent op: %w", k.err)
		var b strings.Builder
		if err := writeReply(&b, peerReply{Error: faultOf("op", far)}); err != nil {
			t.Fatal(err)
		}
		near := readReply("op", []byte(b.String()), nil, nil)
		var pe *PeerError
		if !errors.As(near, &pe) || !errors.Is(near, k.err) {
			t.Errorf("%s (%q): read back as %v (kind %q), errors.Is fails", k.err, k.kind, near, pe.Kind)
		}
		// What the far error also matched there (fs.ErrNotExist for a
		// sentinel.NotExist) it matches here.
		for _, o := range peerKinds {
			if errors.Is(far, o.err) && !errors.Is(near, o.err) {
				t.Errorf("%q: the far error matches %v, the near one does not", k.kind, o.err)
			}
		}
	}
}
