package rocekittest_test

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/rocekittest"
)

// TestPerftestRoleTable: the role is read with perftest's flag table, so
// a value of any option it knows is not taken for the server's address,
// and the address is found where getopt lets perftest take it (command
// lines from public reports, testdata/realworld/perftest).
func TestPerftestRoleTable(t *testing.T) {
	for _, c := range []struct{ argv, role string }{
		{"ib_write_bw -d siw_0 10.1.0.1 -R", "client"},
		{"ib_read_bw  cn2  -a -F -d mlx5_1", "client"},
		{"ib_atomic_bw -d pib_1 -A CMP_AND_SWAP localhost", "client"},
		{"ib_send_bw -d rxe0 -l 4", "server"},
		{"ib_send_bw -d rxe0 --output bandwidth", "server"},
		{"ib_send_bw -d rxe0 --output=bandwidth h", "client"},
		{"ib_write_bw -D 10 -d mlx5_0", "server"},
		{"ib_send_bw -d rxe0 -n many 198.18.0.1", "client"}, // a bad value: the role is still read
	} {
		prog, args := rocekittest.Program(strings.Fields(c.argv))
		if got := rocekittest.PerftestRole(args); got != c.role {
			t.Errorf("%q: %s, want %s", c.argv, got, c.role)
		}
		// A whole argv, program first, as host.Cmd has it.
		if got := rocekittest.PerftestRole(strings.Fields(c.argv)); got != c.role || prog == "" {
			t.Errorf("%q as a whole argv: %s, want %s", c.argv, got, c.role)
		}
	}
}
