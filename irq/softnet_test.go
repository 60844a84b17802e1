package irq

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/sysfs"
)

func TestParseSoftnet(t *testing.T) {
	tests := []struct {
		file string
		want []SoftnetStat
	}{
		// 6.12: 15 columns, the 13th is the CPU id.
		{"trixie/traffic/after/proc/net/softnet_stat", []SoftnetStat{
			{CPU: 0, Processed: 0x2b9, TimeSqueeze: 12, Columns: 15},
			{CPU: 1, Processed: 0x14a, TimeSqueeze: 23, Columns: 15},
			{CPU: 2, TimeSqueeze: 25, Columns: 15},
			{CPU: 3, Columns: 15},
		}},
		// 6.1: 13 columns.
		{"bookworm/traffic/after/proc/net/softnet_stat", []SoftnetStat{
			{CPU: 0, Processed: 0xd8, TimeSqueeze: 5, Columns: 13},
			{CPU: 1, Processed: 0xa0, TimeSqueeze: 0x16, Columns: 13},
			{CPU: 2, TimeSqueeze: 0x12, Columns: 13},
			{CPU: 3, Columns: 13},
		}},
	}
	for _, tt := range tests {
		got, err := ParseSoftnet(bytes.NewReader(readFixture(t, tt.file)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.file, diff)
		}
	}
}

func TestParseSoftnetOldAndBroken(t *testing.T) {
	// Before the CPU column (10 columns, offline CPUs skipped): the line
	// number is the CPU, counting lines that do not parse.
	in := "00000010 00000002 00000003 00000000 00000000 00000000 00000000 00000000 00000000 00000004\n" +
		"zz 1 2\n" +
		"1 2\n" +
		"00000020 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000009\n"
	got, err := ParseSoftnet(strings.NewReader(in))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v", err)
	}
	want := []SoftnetStat{
		{CPU: 0, Processed: 16, Dropped: 2, TimeSqueeze: 3, ReceivedRPS: 4, Columns: 10},
		{CPU: 3, Processed: 32, TimeSqueeze: 1, FlowLimit: 9, Columns: 11},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzParseSoftnet(f *testing.F) {
	f.Add(readFixture(f, "trixie/proc/net/softnet_stat"))
	f.Add(readFixture(f, "bookworm/proc/net/softnet_stat"))
	f.Add([]byte("1 2 3 4 5 6 7 8 9 a b c ffffffffffffffff\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := ParseSoftnet(bytes.NewReader(b))
		for _, s := range got {
			if s.CPU < 0 || s.CPU >= sysfs.MaxCPUID {
				t.Fatalf("CPU %d", s.CPU)
			}
		}
	})
}

func FuzzParseSoftnetOnline(f *testing.F) {
	f.Add(readFixture(f, "bookworm/proc/net/softnet_stat"), []byte{0, 2, 5})
	f.Add([]byte("1 2 3 4 5 6 7 8 9 a b\n1 2 3\n"), []byte{255})
	f.Fuzz(func(t *testing.T, b, on []byte) {
		online := make([]int, len(on))
		for i, c := range on {
			online[i] = int(c) - 8 // some negative
		}
		got, _ := ParseSoftnetOnline(bytes.NewReader(b), online)
		for _, s := range got {
			if s.CPU < 0 || s.CPU >= sysfs.MaxCPUID {
				t.Fatalf("CPU %d", s.CPU)
			}
		}
	})
}

func BenchmarkParseSoftnet(b *testing.B) {
	var sb strings.Builder
	for c := 0; c < 256; c++ {
		fmt.Fprintf(&sb, "%08x 00000000 %08x 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 %08x 00000000 00000000\n", c*1000, c, c)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSoftnet(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
