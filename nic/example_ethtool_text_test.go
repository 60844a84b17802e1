package nic_test

import (
	"fmt"
	"os"

	"github.com/rocekit/rocekit/nic"
)

// A capture of `ethtool -S eth0` from an Azure VM (hv_netvsc), read back.
func ExampleParseEthtoolStats() {
	f, err := os.Open("../testdata/realworld/ethtool/hv-netvsc-azure36/output.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, warnings, err := nic.ParseEthtoolStats(f)
	fmt.Println(len(st.Ethtool), "counters,", len(warnings), "warnings, error", err)
	for _, name := range []string{"tx_send_full", "tx_no_memory", "tx_too_big"} {
		fmt.Printf("%s = %d (%q)\n", name, st.Ethtool[name], nic.ClassifyCounter(name))
	}
	// Output:
	// 6 counters, 0 warnings, error <nil>
	// tx_send_full = 17464 ("")
	// tx_no_memory = 0 ("out_of_buffer")
	// tx_too_big = 0 ("error")
}
