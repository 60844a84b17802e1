package kmsg_test

import (
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/kmsg"
)

// The lines of a link flap and a firmware command timeout, as dmesg -r
// printed them (from testdata/realworld/kmsg), summarised per device.
func ExampleSummarize() {
	log := `<6>[11314.654843] ixgbe 0000:08:00.0 eth11: NIC Link is Up 10 Gbps, Flow Control: RX
<6>[11314.655315] ixgbe 0000:08:00.0 eth11: NIC Link is Down
<3>[14280.445226] mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a command resource
`
	l, err := kmsg.Parse(strings.NewReader(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range kmsg.Summarize(l.Records) {
		fmt.Printf("%s | %s | %s\n", f.Source, f.Kind, f.Name)
	}
	// Output:
	// ixgbe 0000:08:00.0 eth11 | link-flap | link up
	// ixgbe 0000:08:00.0 eth11 | link-flap | link down
	// mlx5_core 0000:61:00.0 | timeout | firmware command timeout
}

// Keep only what a round added, of one driver.
func ExampleSince() {
	before, _ := kmsg.Parse(strings.NewReader("6,390,13606544,-;rdma_rxe: loaded\n"))
	after, _ := kmsg.Parse(strings.NewReader("6,390,13606544,-;rdma_rxe: loaded\n" +
		"6,391,14281890,-;infiniband rxe0: set active\n" +
		"11,397,14504259,-;rocekit-test: injected\n"))
	for _, r := range (kmsg.Filter{Drivers: []string{"rdma_rxe"}}).Apply(kmsg.Since(before.Records, after.Records)) {
		fmt.Println(r.Seq, r.Source, "|", r.Text)
	}
	// Output:
	// 391 infiniband rxe0 | infiniband rxe0: set active
}
