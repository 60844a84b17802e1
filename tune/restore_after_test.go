package tune

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// RestoreAfter undoes only the changes after the one given, newest first;
// Restore then undoes the rest.
func TestRestoreAfter(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	ctx := context.Background()
	for _, mtu := range []int{9000, 4000, 2000} {
		if _, err := s.Apply(ctx, MTU("", "eth0", mtu)); err != nil {
			t.Fatal(err)
		}
	}
	f.writes = nil
	rep, err := s.RestoreAfter(ctx, 1)
	if err != nil || len(rep.Undone) != 2 || rep.Undone[0].Seq != 3 || rep.Undone[1].Seq != 2 {
		t.Fatalf("RestoreAfter(1) = %+v, %v", rep, err)
	}
	if d := cmp.Diff([]string{"mtu//eth0=mtu 4000", "mtu//eth0=mtu 9000"}, f.writes); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
	// Nothing after #3.
	if rep, err := s.RestoreAfter(ctx, 3); err != nil || len(rep.Undone) != 0 {
		t.Errorf("RestoreAfter(3) = %+v, %v", rep, err)
	}
	f.writes = nil
	rep, err = s.Restore(ctx)
	if err != nil || len(rep.Undone) != 1 || rep.AlreadyRestored != 2 || f.get(t, "mtu//eth0") != "mtu 1500" {
		t.Errorf("Restore after RestoreAfter = %+v, %v; eth0 %s", rep, err, f.get(t, "mtu//eth0"))
	}
	s.Close()
	if _, err := s.RestoreAfter(ctx, 0); err != ErrClosed {
		t.Errorf("RestoreAfter on a closed session: %v", err)
	}
}
