package rxe

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// TestShowGIDsTruncatedRow cuts a real output in the middle of its last
// row, as the stored copy of NVIDIA/nccl#1573 was cut ("mlx5_2	1	5	fe"):
// the row is a warning with its line number, the rows before are kept.
func TestShowGIDsTruncatedRow(t *testing.T) {
	full := readRealworld(t, "show_gids-mlx5-husky-rdma0")
	lines := strings.SplitAfter(string(full), "\n")
	// Line 6 is the index 3 row: keep it up to the GID's first group.
	row := lines[5]
	text := strings.Join(lines[:5], "") + row[:len("mlx5_0\t1\t3\t0000")]
	out, err := ParseShowGIDs(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if out.Entries() != 3 || len(out.Warnings) != 2 {
		t.Fatalf("%d rows, warnings %v", out.Entries(), out.Warnings)
	}
	w := lineWarningAt(t, out.Warnings, 0)
	if w.Line != 6 || !errors.Is(w, ErrParse) || w.Text != "mlx5_0\t1\t3\t0000" {
		t.Errorf("warning %+v", w)
	}
	if lineWarningAt(t, out.Warnings, 1).Line != 0 || out.HasFound {
		t.Errorf("second warning %v, HasFound %v", out.Warnings[1], out.HasFound)
	}
	// The same row with the IPv4 column of another address: a warning,
	// the row is kept.
	bad := strings.Replace(string(full), "192.168.211.242  \tv2", "192.168.211.243  \tv2", 1)
	out, err = ParseShowGIDs(strings.NewReader(bad))
	if err != nil || out.Entries() != 4 || len(out.Warnings) != 1 || lineWarningAt(t, out.Warnings, 0).Line != 6 {
		t.Errorf("IPv4 mismatch: %d rows, warnings %v, %v", out.Entries(), out.Warnings, err)
	}
}

// TestShowGIDsNotATable: text with neither header nor row is an error;
// a reader that fails gives an error with the line it reached.
func TestShowGIDsNotATable(t *testing.T) {
	stat := readRealworld(t, "rdma-statistic-mlx5-2019-mail")
	if _, err := ParseShowGIDs(bytes.NewReader(stat)); !errors.Is(err, ErrParse) {
		t.Errorf("rdma statistic text: err = %v", err)
	}
	full := readRealworld(t, "show_gids-mlx5-husky-rdma0")
	r := io.MultiReader(bytes.NewReader(full[:200]), iotest.ErrReader(errors.New("cut")))
	out, err := ParseShowGIDs(r)
	if !errors.Is(err, ErrParse) || out.Entries() == 0 {
		t.Errorf("failing reader: %d rows, err %v", out.Entries(), err)
	}
	long := strings.Repeat("x", 2<<20)
	if _, err := ParseShowGIDs(strings.NewReader(long)); !errors.Is(err, bufio.ErrTooLong) {
		t.Errorf("2 MiB line: %v", err)
	}
}

// TestRDMAStatisticBadValues cuts and garbles the real -p output.
func TestRDMAStatisticBadValues(t *testing.T) {
	p := string(readRealworld(t, "rdma-statistic-p-mlx5-2019-mail"))
	garbled := strings.Replace(p, "\tout_of_buffer 0\n", "\tout_of_buffer N/A\n", 1)
	st, err := ParseRDMAStatistic(strings.NewReader(garbled))
	if err != nil {
		t.Fatal(err)
	}
	// "N/A" is taken for a name; "duplicate_request" for its value.
	if len(st.Warnings) < 1 || lineWarningAt(t, st.Warnings, 0).Line != 5 || !errors.Is(st.Warnings[0], ErrParse) {
		t.Errorf("warnings %v", st.Warnings)
	}
	if v, _, ok := st.Ports[0].Counter("rx_atomic_requests"); !ok || v != 0 {
		t.Errorf("counters before the bad one are lost: %v", st.Ports[0].HW)
	}
	cut := p[:strings.Index(p, "\tnp_cnp_sent")+len("\tnp_cnp_sent")]
	st, err = ParseRDMAStatistic(strings.NewReader(cut))
	if err != nil || len(st.Ports[0].HW) != 20 || len(st.Warnings) != 1 || lineWarningAt(t, st.Warnings, 0).Line != 22 {
		t.Errorf("cut: %d counters, warnings %v, %v", len(st.Ports[0].HW), st.Warnings, err)
	}
	if _, err := ParseRDMAStatistic(strings.NewReader(string(readRealworld(t, "show_gids-mlx5-husky-rdma0")))); !errors.Is(err, ErrParse) {
		t.Errorf("show_gids text: %v", err)
	}
}

func corpusSeeds(t testing.TB) [][]byte {
	ents, err := os.ReadDir(realworldRDMA)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(realworldRDMA, e.Name(), "output.txt")); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func FuzzParseShowGIDs(f *testing.F) {
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := ParseShowGIDs(bytes.NewReader(b))
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("error not wrapping ErrParse: %v", err)
		}
		n := 0
		for _, tb := range out.Tables {
			n += len(tb.Entries)
			for _, e := range tb.Entries {
				if e.Device != tb.Device || e.Port != tb.Port {
					t.Fatalf("entry %+v in table %s/%d", e, tb.Device, tb.Port)
				}
			}
			SelectGID(tb, SelectOptions{Policy: PolicyPerftestPairwise})
		}
		if n != out.Entries() {
			t.Fatal("Entries() disagrees")
		}
	})
}

func FuzzParseRDMAStatistic(f *testing.F) {
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseRDMAStatistic(bytes.NewReader(b))
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("error not wrapping ErrParse: %v", err)
		}
		for _, p := range st.Ports {
			if p.HW == nil {
				t.Fatalf("port %s/%d without a map", p.Device, p.Port)
			}
		}
	})
}

func BenchmarkParseShowGIDs(b *testing.B) {
	var all []byte
	for _, name := range []string{"show_gids-mlx5-k8s-macvlan-index4", "show_gids-rocep-ipv6-only-mi355", "show_gids-mlx5-cx6-two-link-local"} {
		all = append(all, readRealworld(b, name)...)
	}
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseShowGIDs(bytes.NewReader(all)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRDMAStatistic(b *testing.B) {
	all := append(readRealworld(b, "rdma-statistic-mlx5-2019-mail"), readRealworld(b, "rdma-statistic-p-mlx5-2019-mail")...)
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRDMAStatistic(bytes.NewReader(all)); err != nil {
			b.Fatal(err)
		}
	}
}

// lineWarningAt returns ws[i] as a LineWarning, or fails the test.
func lineWarningAt(t *testing.T, ws []error, i int) LineWarning {
	t.Helper()
	var w LineWarning
	if i >= len(ws) || !errors.As(ws[i], &w) {
		t.Fatalf("warning %d of %v is not a LineWarning", i, ws)
	}
	return w
}
