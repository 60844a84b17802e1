package capture

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTCPFixture(t *testing.T, name string) []TCPSocket {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	socks, err := ParseTCPTable(f)
	if err != nil {
		t.Fatalf("ParseTCPTable(%s): %v", name, err)
	}
	return socks
}

func TestParseTCPTableIPv4Fixture(t *testing.T) {
	socks := readTCPFixture(t, "proc_net_tcp.txt")
	if len(socks) != 6 {
		t.Fatalf("got %d sockets, want 6", len(socks))
	}
	want := []TCPSocket{
		{Local: netip.MustParseAddrPort("0.0.0.0:45471"), Remote: netip.MustParseAddrPort("0.0.0.0:0"), State: TCPListen, Inode: 176146},
		{Local: netip.MustParseAddrPort("127.0.0.1:12865"), Remote: netip.MustParseAddrPort("0.0.0.0:0"), State: TCPListen, Inode: 176044},
		{Local: netip.MustParseAddrPort("127.0.0.1:46541"), Remote: netip.MustParseAddrPort("127.0.0.1:45471"), State: 1, Inode: 176143},
	}
	if diff := cmp.Diff(want, socks[:3], cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
		t.Errorf("first rows (-want +got):\n%s", diff)
	}
}

func TestListeningOnFixtures(t *testing.T) {
	tcp := readTCPFixture(t, "proc_net_tcp.txt")
	tcp6 := readTCPFixture(t, "proc_net_tcp6.txt")
	tests := []struct {
		name  string
		socks []TCPSocket
		port  uint16
		want  bool
	}{
		{"netserver control port, IPv4 only", tcp, 12865, true},
		{"netserver data listener", tcp, 45471, true},
		{"established only (client side of the data connection)", tcp, 46541, false},
		{"established only (client side of the control connection)", tcp, 32891, false},
		{"no socket at all", tcp, 18516, false},
		{"AF_UNSPEC netserver is in tcp6", tcp6, 18515, true},
		{"not in tcp", tcp, 18515, false},
		{"IPv4 listener not in tcp6", tcp6, 12865, false},
	}
	for _, tt := range tests {
		if got := ListeningOn(tt.socks, tt.port); got != tt.want {
			t.Errorf("%s: ListeningOn(%d) = %v, want %v", tt.name, tt.port, got, tt.want)
		}
	}
}

func TestParseTCPTableIPv6Address(t *testing.T) {
	// ::1 port 18515, as the kernel prints it on a little-endian machine.
	in := "  sl  local_address                         remote_address                        st\n" +
		"   0: 00000000000000000000000001000000:4853 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 42 1 0 100 0 0 10 0\n"
	socks, err := ParseTCPTable(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 1 || socks[0].Local != netip.MustParseAddrPort("[::1]:18515") || socks[0].Inode != 42 {
		t.Errorf("got %+v, want [::1]:18515 inode 42", socks)
	}
}

func TestParseTCPTableErrors(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	good := "   0: 0100007F:3241 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n"
	tests := []struct {
		name, in, wantInMsg string
	}{
		{"short row", header + good + "   1: 0100007F:3241\n", "line 3"},
		{"bad state", header + strings.Replace(good, " 0A ", " ZZ ", 1), "state"},
		{"bad address", header + strings.Replace(good, "0100007F", "01007F", 1), "address"},
		{"no port", header + strings.Replace(good, "0100007F:3241", "0100007F", 1), "no port"},
	}
	for _, tt := range tests {
		socks, err := ParseTCPTable(strings.NewReader(tt.in))
		if !errors.Is(err, ErrFileParse) || !strings.Contains(err.Error(), tt.wantInMsg) {
			t.Errorf("%s: err = %v, want ErrFileParse mentioning %q", tt.name, err, tt.wantInMsg)
		}
		if tt.name == "short row" && len(socks) != 1 {
			t.Errorf("%s: kept %d rows before the error, want 1", tt.name, len(socks))
		}
	}
}

func FuzzParseTCPTable(f *testing.F) {
	for _, name := range []string{"proc_net_tcp.txt", "proc_net_tcp6.txt"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, in string) {
		socks, err := ParseTCPTable(strings.NewReader(in))
		if err != nil && !errors.Is(err, ErrFileParse) {
			t.Fatalf("error does not wrap ErrFileParse: %v", err)
		}
		_ = ListeningOn(socks, 18515)
	})
}
