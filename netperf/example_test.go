package netperf_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/netperf"
)

// A UDP_STREAM run: the classic table's two lines give the loss.
func Example() {
	out := `MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.2.2 () port 0 AF_INET : demo
Socket  Message  Elapsed      Messages                
Size    Size     Time         Okay Errors   Throughput
bytes   bytes    secs            #      #   10^6bits/sec

425984    1400   2.02        16614      0      92.12
425984           2.02        15990             88.66

`
	res, err := netperf.Parse(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Form, res.Test, *res.ThroughputMbps)
	fmt.Printf("sent %d received %d loss %.1f%%\n", res.UDP.Sent, res.UDP.Received, 100*res.UDP.LossRatio)
	// Output:
	// classic UDP_STREAM 88.66
	// sent 16614 received 15990 loss 3.8%
}

// Omni -k output after -P 0: the selectors by name and typed.
func ExampleParseKeyVal() {
	out := `MIN_LATENCY=546
P99_LATENCY=84000
TRANSACTION_RATE=75.497
THROUGHPUT=75.50
THROUGHPUT_UNITS=Trans/s
`
	res, err := netperf.ParseKeyVal(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	p99, _ := res.Omni.Value("P99_LATENCY")
	fmt.Println(*res.TransPerSec, *res.Omni.P99LatencyMicros, p99)
	// Output: 75.497 84000 84000
}

// netperf's failure messages become an *Error with a Kind.
func ExampleError() {
	out := `establish control: are you sure there is a netserver listening on 198.18.2.2 at port 12888?
establish_control could not establish the control connection from 0.0.0.0 port 0 address family AF_UNSPEC to 198.18.2.2 port 12888 address family AF_INET
`
	_, err := netperf.Parse(strings.NewReader(out))
	var e *netperf.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, errors.Is(err, netperf.ErrFailed))
	}
	// Output: no_server true
}

// Detect routes an input to its parser.
func ExampleDetect() {
	for _, out := range []string{
		"THROUGHPUT=92.68\nTHROUGHPUT_UNITS=10^6bits/s\n",
		"Throughput,Throughput Units\n92.68,10^6bits/s\n",
		"131072  16384  16384    2.08       97.54   \n",
		"Netperf version 2.7.0\n",
	} {
		fmt.Println(netperf.Detect([]byte(out)))
	}
	// Output:
	// keyval
	// csv
	// classic
	// version
}
