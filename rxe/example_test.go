package rxe_test

import (
	"fmt"
	"net/netip"

	"github.com/rocekit/rocekit/rxe"
)

// The GID table of rxe0 on v0 (2001:2::1 and 198.18.20.1), as captured in
// the lab (testdata/trixie/capture.txt.gz, scenario rxe0-ipv4).
func table() rxe.GIDTable {
	e := func(i int, addr string) rxe.GIDEntry {
		return rxe.GIDEntry{Device: "rxe0", Port: 1, Index: i, GID: rxe.GIDFromAddr(netip.MustParseAddr(addr)),
			Type: rxe.GIDTypeRoCEv2, Netdev: "v0"}
	}
	return rxe.GIDTable{Device: "rxe0", Port: 1, Slots: 1024, Entries: []rxe.GIDEntry{
		e(0, "fe80::5008:edff:fe3c:6b43"), e(1, "2001:2::1"), e(2, "198.18.20.1"),
	}}
}

func ExampleSelectGID() {
	sel, err := rxe.SelectGID(table(), rxe.SelectOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ib_send_bw -d %s -x %d\n", sel.Entry.Device, sel.Entry.Index)
	fmt.Println(sel.Reason)
	// Output:
	// ib_send_bw -d rxe0 -x 2
	// index 2: RoCE v2, IPv4-mapped 198.18.20.1, netdev v0; score 112 (IPv4-mapped +100, not link-local +10, RoCE v2 +2), highest of 3 entries
}

func ExampleCheckCompatible() {
	local, _ := table().Entry(2)
	remote, _ := table().Entry(1) // the peer picked its IPv6 GID
	fmt.Println(rxe.CheckCompatible(local, remote))
	// Output:
	// rxe: incompatible GIDs: local rxe0/1 index 2 (RoCE v2, ::ffff:198.18.20.1), remote rxe0/1 index 1 (RoCE v2, 2001:2::1): one is IPv4-mapped, the other IPv6
}
