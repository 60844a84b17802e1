// Package agent is the lab guest's init process. It mounts /proc, /sys and
// /dev, loads the virtio drivers, runs the steps of the plan that the host
// put in the initramfs overlay, streams their output and exit status to the
// host over the "rocekit.lab" virtio serial port (see lab.Record), sends the
// collected files, and powers the guest off.
//
// It is built as the static binary cmd/labinit and placed at /init:
//
//	func main() { agent.Main() }
package agent
