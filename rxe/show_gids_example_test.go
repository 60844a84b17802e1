package rxe_test

import (
	"fmt"
	"os"

	"github.com/rocekit/rocekit/rxe"
)

// Pick the RoCE v2 IPv4 index from show_gids text captured on another
// host (here from the Husky benchmark's README).
func ExampleParseShowGIDs() {
	f, err := os.Open("../testdata/realworld/rdma/show_gids-mlx5-husky-rdma0/output.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	out, err := rxe.ParseShowGIDs(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	sel, err := rxe.SelectGID(out.Tables[0], rxe.SelectOptions{Policy: rxe.PolicyRoCEv2IPv4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Entries(), "GIDs;", "ib_send_bw -d", sel.Entry.Device, "-x", sel.Entry.Index)
	fmt.Println(sel.Reason)
	// Output:
	// 4 GIDs; ib_send_bw -d mlx5_0 -x 3
	// index 3: RoCE v2, IPv4-mapped 192.168.211.242, netdev rdma0; the first RoCE v2 entry with an IPv4 address
}
