package host

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// TCPState is the st column of /proc/net/tcp: the kernel's TCP_* state
// number (include/net/tcp_states.h).
type TCPState uint8

// TCP states as the kernel numbers them.
const (
	TCPEstablished TCPState = 0x01
	TCPSynSent     TCPState = 0x02
	TCPSynRecv     TCPState = 0x03
	TCPFinWait1    TCPState = 0x04
	TCPFinWait2    TCPState = 0x05
	TCPTimeWait    TCPState = 0x06
	TCPClose       TCPState = 0x07
	TCPCloseWait   TCPState = 0x08
	TCPLastAck     TCPState = 0x09
	TCPListen      TCPState = 0x0A // "0A": a listening socket
	TCPClosing     TCPState = 0x0B
	TCPNewSynRecv  TCPState = 0x0C
)

var tcpStateNames = map[TCPState]string{
	TCPEstablished: "ESTABLISHED", TCPSynSent: "SYN_SENT", TCPSynRecv: "SYN_RECV",
	TCPFinWait1: "FIN_WAIT1", TCPFinWait2: "FIN_WAIT2", TCPTimeWait: "TIME_WAIT",
	TCPClose: "CLOSE", TCPCloseWait: "CLOSE_WAIT", TCPLastAck: "LAST_ACK",
	TCPListen: "LISTEN", TCPClosing: "CLOSING", TCPNewSynRecv: "NEW_SYN_RECV",
}

// String returns the state as ss(8) names it ("LISTEN"), or its hex number.
func (s TCPState) String() string {
	if n, ok := tcpStateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("0x%02X", uint8(s))
}

// TCPSocket is one row of /proc/net/tcp or /proc/net/tcp6.
type TCPSocket struct {
	Local  netip.AddrPort // an IPv4 address for tcp rows, IPv6 for tcp6 rows
	Remote netip.AddrPort
	State  TCPState
	UID    uint32
	Inode  uint64 // matches the socket:[INODE] links in /proc/PID/fd
}

// ListeningOn reports whether socks hold a socket in LISTEN state on port,
// on any local address.
func ListeningOn(socks []TCPSocket, port uint16) bool {
	for _, s := range socks {
		if s.State == TCPListen && s.Local.Port() == port {
			return true
		}
	}
	return false
}

// listenerInodes returns the inodes of socks in LISTEN state on port.
func listenerInodes(socks []TCPSocket, port uint16) map[uint64]bool {
	var in map[uint64]bool
	for _, s := range socks {
		if s.State == TCPListen && s.Local.Port() == port && s.Inode != 0 {
			if in == nil {
				in = map[uint64]bool{}
			}
			in[s.Inode] = true
		}
	}
	return in
}

// socketInode reads the inode out of a /proc/PID/fd link "socket:[INODE]".
func socketInode(link string) (uint64, bool) {
	rest, ok := strings.CutPrefix(link, "socket:[")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, "]")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// ParseTCPTable parses /proc/net/tcp or /proc/net/tcp6, or both one after
// the other: a header line starting with "sl" (anywhere) and one row per
// socket.
//
//	sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	 0: 0100007F:4853 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 31337 ...
//
// The kernel prints each 32-bit word of an address with %08X from memory
// in network order, so the digits are read back in the byte order of the
// machine running the parser: the table must come from a machine of the
// same byte order (every little-endian Linux: x86-64, arm64, ppc64le,
// riscv64). Ports and states do not depend on it. On a malformed row it
// returns the rows parsed so far and an error wrapping ErrParse that names
// the line.
//
// Similar to: ss -tan
func ParseTCPTable(r io.Reader) ([]TCPSocket, error) {
	var socks []TCPSocket
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "sl ") {
			continue
		}
		s, err := parseTCPRow(line)
		if err != nil {
			return socks, fmt.Errorf("%w: tcp table line %d: %v", ErrParse, n, err)
		}
		socks = append(socks, s)
	}
	if err := sc.Err(); err != nil {
		return socks, fmt.Errorf("%w: tcp table: %v", ErrParse, err)
	}
	return socks, nil
}

// parseTCPRow parses one socket row; fields past the inode are ignored.
func parseTCPRow(line string) (TCPSocket, error) {
	f := strings.Fields(line)
	if len(f) < 10 || !strings.HasSuffix(f[0], ":") {
		return TCPSocket{}, fmt.Errorf("want at least 10 fields, the first \"N:\", got %q", line)
	}
	if _, err := strconv.ParseUint(strings.TrimSuffix(f[0], ":"), 10, 64); err != nil {
		return TCPSocket{}, fmt.Errorf("slot %q is not a number", f[0])
	}
	local, err := parseHexAddrPort(f[1])
	if err != nil {
		return TCPSocket{}, fmt.Errorf("local address: %v", err)
	}
	remote, err := parseHexAddrPort(f[2])
	if err != nil {
		return TCPSocket{}, fmt.Errorf("remote address: %v", err)
	}
	if local.Addr().Is4() != remote.Addr().Is4() {
		return TCPSocket{}, fmt.Errorf("local %v and remote %v differ in family", local, remote)
	}
	if len(f[3]) != 2 {
		return TCPSocket{}, fmt.Errorf("state %q: want 2 hex digits", f[3])
	}
	st, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil {
		return TCPSocket{}, fmt.Errorf("state %q: %v", f[3], err)
	}
	uid, err := strconv.ParseUint(f[7], 10, 32)
	if err != nil {
		return TCPSocket{}, fmt.Errorf("uid %q: %v", f[7], err)
	}
	inode, err := strconv.ParseUint(f[9], 10, 64)
	if err != nil {
		return TCPSocket{}, fmt.Errorf("inode %q: %v", f[9], err)
	}
	return TCPSocket{Local: local, Remote: remote, State: TCPState(st), UID: uint32(uid), Inode: inode}, nil
}

// parseHexAddrPort parses "0100007F:4853" (IPv4) or 32 hex digits and a
// port (IPv6).
func parseHexAddrPort(s string) (netip.AddrPort, error) {
	addrHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("%q has no port", s)
	}
	if len(portHex) != 4 {
		return netip.AddrPort{}, fmt.Errorf("port %q: want 4 hex digits", portHex)
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q: %v", portHex, err)
	}
	raw, err := hex.DecodeString(addrHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q: want 8 or 32 hex digits", addrHex)
	}
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

// tcpTableCommand prints the TCP tables of a process (pid > 0) or of the
// shell's own namespace; it fails when the IPv4 table cannot be read and
// tolerates a kernel without IPv6.
func tcpTableCommand(pid int) []string {
	dir := "/proc/net"
	if pid > 0 {
		dir = "/proc/" + strconv.Itoa(pid) + "/net"
	}
	return []string{"sh", "-c", `cat "$1/tcp" && { cat "$1/tcp6" 2>/dev/null; true; }`, "sh", dir}
}
