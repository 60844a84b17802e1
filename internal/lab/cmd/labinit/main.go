// Command labinit is the init (PID 1) of a lab guest: it runs the plan the
// host placed in the initramfs and reports over a virtio serial port. It is
// built by the lab harness (CGO_ENABLED=0) and is not meant to be run by hand.
package main

import "github.com/rocekit/rocekit/internal/lab/agent"

func main() { agent.Main() }
