package sysfs

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNodes(t *testing.T) {
	tests := []struct {
		tree   string
		online string
		nodes  []Node
	}{
		{"mlx5-2node", "0-95", []Node{{0, append(seq(0, 23), seq(48, 71)...)}, {1, append(seq(24, 47), seq(72, 95)...)}}},
		{"bookworm", "0-3", []Node{{0, CPUList{0, 1, 2, 3}}}},
		{"trixie", "0-3", []Node{{0, CPUList{0, 1, 2, 3}}}},
		{"host", "0-1", []Node{{0, CPUList{0, 1}}}},
	}
	for _, tt := range tests {
		fs := fixtureRoot(t, tt.tree)
		on, err := fs.OnlineCPUs()
		if err != nil || on.String() != tt.online {
			t.Errorf("%s: OnlineCPUs = %v, %v", tt.tree, on, err)
		}
		nodes, err := fs.Nodes()
		if err != nil {
			t.Errorf("%s: %v", tt.tree, err)
			continue
		}
		if diff := cmp.Diff(tt.nodes, nodes); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.tree, diff)
		}
	}
	if _, err := fixtureRoot(t, "odd").Nodes(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no node folder: err = %v", err)
	}
	if _, err := fixtureRoot(t, "bookworm").NodeCPUs(-1); err == nil {
		t.Error("NodeCPUs(-1) gave no error")
	}
}
