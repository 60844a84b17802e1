package kmsg

import (
	"errors"
	"fmt"
	"time"
)

// ErrParse is wrapped by every warning and error about input that does not
// read as a kernel log.
var ErrParse = errors.New("kmsg: cannot parse")

// ErrPermission means the kernel log could not be read for lack of
// privilege: kernel.dmesg_restrict is 1 and the reader is not root (has no
// CAP_SYSLOG). errors.Is(err, os.ErrPermission) holds too.
var ErrPermission = errors.New("kmsg: reading the kernel log needs root (kernel.dmesg_restrict=1)")

// Format is the textual form a record was read in.
type Format int

// The forms the parser reads.
const (
	// FormatBare is a line with no prefix at all (dmesg on a kernel built
	// without printk timestamps, or text cut out of a report).
	FormatBare Format = iota
	// FormatKmsg is a /dev/kmsg record: "6,1234,5678901,-;text", followed
	// by dictionary lines that start with a space.
	//
	// Similar to: cat /dev/kmsg
	FormatKmsg
	// FormatRaw is "<6>[ 1234.567890] text".
	//
	// Similar to: dmesg -r
	FormatRaw
	// FormatPlain is "[ 1234.567890] text".
	//
	// Similar to: dmesg
	FormatPlain
	// FormatCtime is "[Mon Nov 30 12:00:00 2026] text".
	//
	// Similar to: dmesg -T
	FormatCtime
	// FormatSyslog is a syslog or journal line whose tag is "kernel:"
	// ("Jul 23 16:18:53 host kernel: text", optionally with a "[ 1.2]"
	// timestamp after the tag).
	//
	// Similar to: journalctl -k -o short; grep kernel: /var/log/messages
	FormatSyslog
)

// String names the format as the command that prints it.
func (f Format) String() string {
	switch f {
	case FormatKmsg:
		return "kmsg"
	case FormatRaw:
		return "dmesg -r"
	case FormatPlain:
		return "dmesg"
	case FormatCtime:
		return "dmesg -T"
	case FormatSyslog:
		return "syslog"
	}
	return "bare"
}

// Record is one kernel log message.
type Record struct {
	// Line is the 1-based line of the input the record started on.
	Line int
	// Format is the form the record was read in.
	Format Format
	// Host is the host name of a pdsh/clush prefix ("node1: [ 1.2] …");
	// empty when none.
	Host string
	// Priority is the syslog level 0 (emerg) … 7 (debug), -1 when the form
	// does not carry it (dmesg, dmesg -T).
	Priority int
	// Facility is the syslog facility (0 kernel, 1 user, …), -1 when
	// unknown.
	Facility int
	// Seq is the kernel's sequence number (/dev/kmsg only); HasSeq says
	// whether it is known.
	Seq    uint64
	HasSeq bool
	// Micros is the monotonic time since boot in microseconds; HasTime
	// says whether it is known.
	Micros  int64
	HasTime bool
	// Wall is the wall-clock time that dmesg -T or syslog printed (in the
	// printing host's zone, read as UTC); zero when not printed.
	Wall time.Time
	// Continued is true for a /dev/kmsg record flagged 'c' (a fragment
	// that a later record continues).
	Continued bool
	// Text is the message without any prefix; /dev/kmsg escapes (\x0a)
	// are decoded.
	Text string
	// Subsystem and Device are the /dev/kmsg dictionary's SUBSYSTEM= and
	// DEVICE= values ("pci", "+pci:0000:3b:00.0"), empty when absent.
	Subsystem, Device string
	// Source is the driver, device and netdev the text names.
	Source Source
}

// Source is what a message is about, as its prefix names it:
// "mlx5_core 0000:3b:00.0 ens1f0np0: Link up" has Driver "mlx5_core",
// Device "0000:3b:00.0" and Netdev "ens1f0np0".
type Source struct {
	// Driver is the driver, bus or class that printed the line
	// (mlx5_core, ice, virtio_net, hv_netvsc, infiniband, pcieport).
	Driver string
	// Device is the device name that follows the driver: a PCI address,
	// virtio1, a VMBus GUID, an RDMA device (rxe0).
	Device string
	// Netdev is the network interface the line names (eth0, ens1f0).
	Netdev string
	// Tag is the leading "word:" of a line that names neither a known
	// driver nor a netdev ("IPv6", "NETDEV WATCHDOG", "ACPI").
	Tag string
}

// String prints the source as the kernel does: "mlx5_core 0000:3b:00.0
// ens1f0np0".
func (s Source) String() string {
	out := ""
	for _, p := range []string{s.Driver, s.Device, s.Netdev} {
		if p == "" {
			continue
		}
		if out != "" {
			out += " "
		}
		out += p
	}
	if out == "" {
		return s.Tag
	}
	return out
}

// String prints the record in dmesg -r form with its sequence number when
// known: "<3>[   12.345678] #17 text".
func (r Record) String() string {
	s := ""
	if r.Priority >= 0 {
		s += fmt.Sprintf("<%d>", r.Priority)
	}
	if r.HasTime {
		s += fmt.Sprintf("[%5d.%06d] ", r.Micros/1e6, r.Micros%1e6)
	}
	if r.HasSeq {
		s += fmt.Sprintf("#%d ", r.Seq)
	}
	return s + r.Text
}
