package host

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a small program that the tests
// start through the runners (see runHelper).
const helperEnv = "HOSTTEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper runs one helper mode:
//
//	listen:NETWORK:ADDR   listen (tcp4, tcp6, tcp), print "listening", run until killed
//	connect:ADDR          connect over TCP, print "connected", exit 0
//	pdeathsig             start "sleep 1000" with Local, print its PID, exit at once
func runHelper(mode string) int {
	kind, arg, _ := strings.Cut(mode, ":")
	switch kind {
	case "listen":
		network, addr, _ := strings.Cut(arg, ":")
		l, err := net.Listen(network, addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("listening")
		for {
			c, err := l.Accept()
			if err != nil {
				return 1
			}
			c.Close()
		}
	case "connect":
		c, err := net.DialTimeout("tcp", arg, 10*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
		return 0
	case "pdeathsig":
		return helperPdeathsig()
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

func helperPdeathsig() int {
	p, err := Local{}.Start(context.Background(), Cmd{Argv: []string{"sleep", "1000"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(p.PID())
	return 0 // exits without waiting: PDEATHSIG must kill sleep
}
