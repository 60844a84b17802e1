//go:build linux

package kmsg

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// TestReadHostRoot reads this host's kernel log as root, both ways, writes
// a marker through /dev/kmsg and finds it, alone, in what Since returns.
func TestReadHostRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: writes a line to /dev/kmsg")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before, err := Read(ctx, host.Local{})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Records) == 0 || !before.Records[0].HasSeq {
		t.Fatalf("Read: %d records, first %+v; want /dev/kmsg records", len(before.Records), before.Records)
	}
	marker := fmt.Sprintf("rocekit-kmsg-test: marker %d", time.Now().UnixNano())
	if err := os.WriteFile("/dev/kmsg", []byte("<4>"+marker+"\n"), 0); err != nil {
		t.Fatal(err)
	}
	after, err := Read(ctx, host.Local{})
	if err != nil {
		t.Fatal(err)
	}
	var found []Record
	for _, r := range Since(before.Records, after.Records) {
		if r.Text == marker {
			found = append(found, r)
		}
	}
	if len(found) != 1 || found[0].Priority != 4 || found[0].Facility != 1 || found[0].Seq <= before.Records[len(before.Records)-1].Seq {
		t.Fatalf("marker in Since: %+v", found)
	}
	// The same through dmesg -r: found by text and time after the cursor.
	dm, err := ReadWith(ctx, host.Local{}, MethodDmesg)
	if err != nil {
		t.Fatal(err)
	}
	last := dm.Records[len(dm.Records)-1]
	cur := CursorOf(dm.Records)
	if n := len(cur.After(dm.Records)); n != 0 {
		t.Errorf("dmesg -r: %d records after its own end", n)
	}
	var inDmesg bool
	for _, r := range dm.Records {
		inDmesg = inDmesg || r.Text == marker && r.HasTime && r.Micros == found[0].Micros
	}
	if !inDmesg {
		t.Errorf("marker (%d µs) not in dmesg -r (last %v)", found[0].Micros, last)
	}
}
