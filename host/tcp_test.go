package host

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
)

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

// The fixture: testdata/proc/net/{tcp,tcp6}, captured by capture.sh beside
// it (see README there).
var fixtureSockets = []TCPSocket{
	{Local: ap("0.0.0.0:18515"), Remote: ap("0.0.0.0:0"), State: TCPListen, Inode: 618121},
	{Local: ap("127.0.0.1:18515"), Remote: ap("127.0.0.1:42546"), State: TCPEstablished, Inode: 618124},
	{Local: ap("127.0.0.1:42546"), Remote: ap("127.0.0.1:18515"), State: TCPEstablished, Inode: 618123},
	{Local: ap("[::1]:4791"), Remote: ap("[::]:0"), State: TCPListen, Inode: 618126},
	{Local: ap("[::]:12865"), Remote: ap("[::]:0"), State: TCPListen, Inode: 618122},
	{Local: ap("[::1]:53640"), Remote: ap("[::1]:12865"), State: TCPEstablished, Inode: 618125},
	{Local: ap("[::1]:45590"), Remote: ap("[::1]:4791"), State: TCPEstablished, Inode: 618127},
	{Local: ap("[::1]:12865"), Remote: ap("[::1]:53640"), State: TCPEstablished, Inode: 618128},
	{Local: ap("[::1]:4791"), Remote: ap("[::1]:45590"), State: TCPEstablished, Inode: 0},
}

func readFixture(t testing.TB) []byte {
	t.Helper()
	v4, err := os.ReadFile("testdata/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	v6, err := os.ReadFile("testdata/proc/net/tcp6")
	if err != nil {
		t.Fatal(err)
	}
	return append(v4, v6...)
}

func TestParseTCPTableFixture(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the fixture was captured on a little-endian machine")
	}
	got, err := ParseTCPTable(bytes.NewReader(readFixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, fixtureSockets) {
		t.Errorf("got\n%v\nwant\n%v", got, fixtureSockets)
	}
	for port, want := range map[uint16]bool{18515: true, 12865: true, 4791: true, 42546: false, 53640: false, 22: false} {
		if ListeningOn(got, port) != want {
			t.Errorf("ListeningOn(%d) = %v", port, !want)
		}
	}
}

func TestLocalTCPSocketsFixture(t *testing.T) {
	socks, err := Local{ProcDir: "testdata/proc"}.TCPSockets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != len(fixtureSockets) || socks[0].State != TCPListen || socks[0].Local.Port() != 18515 {
		t.Errorf("got %v", socks)
	}
}

func TestParseTCPTableErrors(t *testing.T) {
	header := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	good := "   0: 0100007F:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 31337 1 0 100 0 0 10 0\n"
	for name, bad := range map[string]string{
		"short":        "   1: 0100007F:4853 00000000:0000 0A\n",
		"no slot":      "   x 0100007F:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"bad address":  "   1: 0100007G:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"short port":   "   1: 0100007F:485 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"odd address":  "   1: 0100007:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"mixed family": "   1: 0100007F:4853 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"bad state":    "   1: 0100007F:4853 00000000:0000 ZZ 00000000:00000000 00:00000000 00000000 0 0 1\n",
		"bad uid":      "   1: 0100007F:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000 -1 0 1\n",
		"bad inode":    "   1: 0100007F:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 x\n",
	} {
		got, err := ParseTCPTable(strings.NewReader(header + good + bad))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%s: err = %v, want ErrParse naming line 3", name, err)
		}
		if len(got) != 1 || got[0].Inode != 31337 || got[0].UID != 1000 || got[0].Local.Port() != 18515 {
			t.Errorf("%s: kept %v, want the good row", name, got)
		}
	}
}

func TestTCPStateString(t *testing.T) {
	if TCPListen.String() != "LISTEN" || TCPState(0x42).String() != "0x42" {
		t.Errorf("%v %v", TCPListen, TCPState(0x42))
	}
}

// formatTCPRow writes s as the kernel would (on this machine's byte order).
func formatTCPRow(i int, s TCPSocket) string {
	hexAddr := func(a netip.Addr) string {
		b := a.AsSlice()
		var out string
		for j := 0; j < len(b); j += 4 {
			out += fmt.Sprintf("%08X", binary.NativeEndian.Uint32(b[j:]))
		}
		return out
	}
	return fmt.Sprintf("%4d: %s:%04X %s:%04X %02X 00000000:00000000 00:00000000 00000000 %5d 0 %d 1 0 100 0 0 10 0",
		i, hexAddr(s.Local.Addr()), s.Local.Port(), hexAddr(s.Remote.Addr()), s.Remote.Port(), uint8(s.State), s.UID, s.Inode)
}

func FuzzParseTCPTable(f *testing.F) {
	f.Add(readFixture(f))
	f.Add([]byte("  sl  local_address\n   0: 0100007F:4853 00000000:0000 0A 0:0 0:0 0 0 0 1\n"))
	f.Add([]byte("0: :: : 0A"))
	f.Fuzz(func(t *testing.T, data []byte) {
		socks, err := ParseTCPTable(bytes.NewReader(data))
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("error %v does not wrap ErrParse", err)
		}
		// What parsed must print back to the same sockets.
		var b strings.Builder
		for i, s := range socks {
			b.WriteString(formatTCPRow(i, s) + "\n")
		}
		again, err := ParseTCPTable(strings.NewReader(b.String()))
		if err != nil || !slices.Equal(again, socks) {
			t.Fatalf("round trip: %v\n%v\n%v", err, socks, again)
		}
	})
}

func TestSocketInode(t *testing.T) {
	for link, want := range map[string]uint64{
		"socket:[31337]": 31337, "socket:[0]": 0, "socket:[]": 0, "socket:[12": 0,
		"pipe:[31337]": 0, "/dev/null": 0, "socket:[-1]": 0, "socket:[18446744073709551615]": 18446744073709551615,
	} {
		got, ok := socketInode(link)
		if got != want || ok != (want != 0 || link == "socket:[0]") {
			t.Errorf("socketInode(%q) = %d, %v", link, got, ok)
		}
	}
	socks := []TCPSocket{
		{Local: netip.MustParseAddrPort("0.0.0.0:12865"), State: TCPListen, Inode: 7},
		{Local: netip.MustParseAddrPort("[::]:12865"), State: TCPListen, Inode: 8},
		{Local: netip.MustParseAddrPort("127.0.0.1:12865"), State: TCPEstablished, Inode: 9},
		{Local: netip.MustParseAddrPort("0.0.0.0:18515"), State: TCPListen, Inode: 10},
	}
	if got := listenerInodes(socks, 12865); len(got) != 2 || !got[7] || !got[8] {
		t.Errorf("listenerInodes = %v, want 7 and 8", got)
	}
	if got := listenerInodes(socks, 1); got != nil {
		t.Errorf("listenerInodes(port 1) = %v", got)
	}
}
