package perftest_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// The client side of ib_send_bw -d rxe0 -x 1 -F -n 300 (perftest 4.5).
const clientOutput = `---------------------------------------------------------------------------------------
                    Send BW Test
 Dual-port       : OFF		Device         : rxe0
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 PCIe relax order: ON
 ibv_wr* API     : OFF
 TX depth        : 128
 CQ Moderation   : 1
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Max inline data : 0[B]
 rdma_cm QPs	 : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x0011 PSN 0xe5efb3
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01
 remote address: LID 0000 QPN 0x0012 PSN 0xfc6fc
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      300              33.64              6.97   		   0.000112
---------------------------------------------------------------------------------------
`

func ExampleParse() {
	res, err := perftest.Parse(strings.NewReader(clientOutput))
	if err != nil {
		fmt.Println(err)
		return
	}
	h := res.Header
	fmt.Printf("%s on %s, %d QP %s, MTU %d, GID %s (index %d)\n",
		res.Test, h.Device, h.QPs, h.Connection, h.MTU, h.Local[0].GID.Unmap(), h.GIDIndex)
	for _, r := range res.BW {
		fmt.Printf("%d B x %d: avg %.2f %s = %.4f Gb/s, %.6f Mpps\n",
			r.Bytes, r.Iterations, r.Printed.Avg, r.Printed.Unit, r.BWAvgGbps, r.MsgRateMpps)
	}
	// Output:
	// Send BW Test on rxe0, 1 QP RC, MTU 1024, GID 198.18.0.1 (index 1)
	// 65536 B x 300: avg 6.97 MiB/s = 0.0585 Gb/s, 0.000112 Mpps
}

func ExampleClassify() {
	serverErr := []byte("ethernet_read_keys: Couldn't read remote address\n Unable to read to socket/rdma_cm\n")
	clientErr := []byte(" Completion with error at client\n Failed status 10: wr_id 0 syndrom 0x0\nscnt=128, ccnt=0\n")
	err := perftest.Classify(serverErr, clientErr)
	var e *perftest.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, "-", e.Message)
	}
	// Output:
	// completion - Completion with error at client; Failed status 10: wr_id 0 syndrom 0x0; scnt=128, ccnt=0
}

func ExampleDetect() {
	for _, in := range []string{clientOutput, "6.705108\n", "{\ntest_info: {\n", "IB device nosuchdev not found\n"} {
		fmt.Println(perftest.Detect([]byte(in)))
	}
	// Output:
	// text_bw
	// bare
	// json
	// error
}
