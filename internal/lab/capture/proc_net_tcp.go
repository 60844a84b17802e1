package capture

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// ErrFileParse is wrapped by every parse error of this package.
var ErrFileParse = errors.New("capture: cannot parse file")

// TCPState is the st column of /proc/net/tcp (the kernel's TCP_* state number).
type TCPState uint8

// TCPListen is the state of a listening socket ("0A").
const TCPListen TCPState = 0x0A

// TCPSocket is one row of /proc/net/tcp or /proc/net/tcp6.
type TCPSocket struct {
	Local  netip.AddrPort
	Remote netip.AddrPort
	State  TCPState
	Inode  uint64
}

// ParseTCPTable parses the contents of /proc/net/tcp or /proc/net/tcp6 (the header line and
// one row per socket). Addresses are printed by the kernel as 32-bit words in the byte order
// of the machine, so the table must come from a machine of the reader's byte order (all lab
// machines are little-endian). The file of /proc/<pid>/net shows the network namespace of pid.
func ParseTCPTable(r io.Reader) ([]TCPSocket, error) {
	var socks []TCPSocket
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || (n == 1 && strings.HasPrefix(line, "sl ")) {
			continue
		}
		s, err := parseTCPRow(line)
		if err != nil {
			return socks, fmt.Errorf("%w: /proc/net/tcp line %d: %v", ErrFileParse, n, err)
		}
		socks = append(socks, s)
	}
	if err := sc.Err(); err != nil {
		return socks, fmt.Errorf("%w: /proc/net/tcp: %v", ErrFileParse, err)
	}
	return socks, nil
}

// ListeningOn reports whether socks contain a LISTEN socket on port, on any address.
func ListeningOn(socks []TCPSocket, port uint16) bool {
	for _, s := range socks {
		if s.State == TCPListen && s.Local.Port() == port {
			return true
		}
	}
	return false
}

// parseTCPRow parses "0: 0100007F:3242 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 12345 ...".
func parseTCPRow(line string) (TCPSocket, error) {
	f := strings.Fields(line)
	if len(f) < 10 || !strings.HasSuffix(f[0], ":") {
		return TCPSocket{}, fmt.Errorf("want at least 10 fields starting with \"N:\", got %q", line)
	}
	local, err := parseHexAddrPort(f[1])
	if err != nil {
		return TCPSocket{}, fmt.Errorf("local address: %v", err)
	}
	remote, err := parseHexAddrPort(f[2])
	if err != nil {
		return TCPSocket{}, fmt.Errorf("remote address: %v", err)
	}
	st, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil {
		return TCPSocket{}, fmt.Errorf("state %q: %v", f[3], err)
	}
	inode, err := strconv.ParseUint(f[9], 10, 64)
	if err != nil {
		return TCPSocket{}, fmt.Errorf("inode %q: %v", f[9], err)
	}
	return TCPSocket{Local: local, Remote: remote, State: TCPState(st), Inode: inode}, nil
}

// parseHexAddrPort parses "0100007F:4853" (IPv4) or 32 hex digits and a port (IPv6).
func parseHexAddrPort(s string) (netip.AddrPort, error) {
	addrHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("%q has no port", s)
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q: %v", portHex, err)
	}
	raw, err := hex.DecodeString(addrHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q: want 8 or 32 hex digits", addrHex)
	}
	// Each 32-bit word was printed with %08X from memory in network order, so reading the
	// digits back in the machine's byte order restores the network-order bytes.
	var b [16]byte
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr := netip.AddrFrom16(b)
	if len(raw) == 4 {
		addr = netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrPortFrom(addr, uint16(port)), nil
}
