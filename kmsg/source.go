package kmsg

import "strings"

// knownDrivers are the NIC, RDMA and PCI drivers whose "name:" prefix is
// read as a driver (other prefixes are Tags or netdevs).
var knownDrivers = map[string]bool{
	"mlx5_core": true, "mlx5_ib": true, "mlx4_core": true, "mlx4_en": true, "mlx4_ib": true,
	"ice": true, "i40e": true, "iavf": true, "ixgbe": true, "ixgbevf": true, "igb": true,
	"igc": true, "e1000e": true, "e1000": true, "irdma": true,
	"virtio_net": true, "virtio_pci": true, "rdma_rxe": true, "rxe": true, "siw": true, "ib_core": true,
	"bnxt_en": true, "bnxt_re": true, "ena": true, "efa": true, "mana": true, "mana_ib": true,
	"hv_netvsc": true, "qede": true, "qedr": true, "be2net": true, "tg3": true, "r8169": true,
	"sfc": true, "enic": true, "nfp": true, "cxgb4": true, "iw_cxgb4": true, "vmxnet3": true,
	"veth": true, "bonding": true, "infiniband": true, "pcieport": true, "ib_ipoib": true,
}

// notNetdevs are prefixes of "name:" words that contain digits but are not
// network interfaces.
var notNetdevs = []string{"ata", "usb", "sd", "nvme", "cpu", "pci", "hub", "tty", "acpi", "rtc",
	"input", "hid", "scsi", "sr", "loop", "md", "dm-", "nbd", "vd", "xvd", "x86", "e820", "i8042", "serial"}

// SourceOf reads the driver, device and netdev a message names from its
// prefix, the way the kernel's dev_printk and netdev_printk write them:
//
//	mlx5_core 0000:3b:00.0: cmd_exec timeout   → Driver, Device
//	ice 0000:5e:00.0 ens1f0: NIC Link is up    → Driver, Device, Netdev
//	virtio_net virtio1 eth0: ...               → Driver, Device, Netdev
//	e1000e: eth1 NIC Link is Down              → Driver, Netdev
//	NETDEV WATCHDOG: eth0 (mlx5_core): ...     → Tag, Netdev, Driver
//	IPv6: ADDRCONF(NETDEV_CHANGE): eth0: ...   → Tag, Netdev
//	eth0: renamed from veth1                   → Netdev
//	rdma_rxe: loaded                           → Driver
//
// Similar to: dmesg | grep mlx5_core
func SourceOf(text string) Source {
	if rest, ok := strings.CutPrefix(text, "NETDEV WATCHDOG: "); ok {
		return watchdogSource(rest)
	}
	t := strings.SplitN(text, " ", 4)
	if len(t) >= 2 && !strings.HasSuffix(t[0], ":") && isDriverWord(t[0]) {
		if d, ok := strings.CutSuffix(t[1], ":"); ok && (isDeviceWord(d) || knownDrivers[t[0]] && isNameWord(d)) {
			return Source{Driver: t[0], Device: d}
		}
		if len(t) >= 3 && isDeviceWord(t[1]) {
			if n, ok := strings.CutSuffix(t[2], ":"); ok && isNetdevWord(n) {
				return Source{Driver: t[0], Device: t[1], Netdev: n}
			}
		}
	}
	name, ok := strings.CutSuffix(t[0], ":")
	if !ok || name == "" {
		return Source{}
	}
	switch {
	case knownDrivers[name]:
		s := Source{Driver: name}
		if len(t) >= 2 {
			w, colon := strings.CutSuffix(t[1], ":")
			switch {
			case colon && isPCIAddr(w):
				s.Device = w
			case isNetdevWord(w):
				s.Netdev = w
			}
		}
		return s
	case name == "IPv6" || name == "IPv4":
		return Source{Tag: name, Netdev: addrconfNetdev(text)}
	case isNetdevWord(name):
		return Source{Netdev: name}
	}
	return Source{Tag: name}
}

// watchdogSource reads "eth0 (mlx5_core): transmit queue 3 timed out".
func watchdogSource(rest string) Source {
	s := Source{Tag: "NETDEV WATCHDOG"}
	dev, after, _ := strings.Cut(rest, " ")
	if isNetdevWord(dev) {
		s.Netdev = dev
	}
	if strings.HasPrefix(after, "(") {
		if end := strings.Index(after, "):"); end > 1 {
			s.Driver = after[1:end]
		}
	}
	return s
}

// addrconfNetdev reads the netdev of "IPv6: ADDRCONF(NETDEV_UP): eth0: link
// is not ready".
func addrconfNetdev(text string) string {
	i := strings.Index(text, "): ")
	if i < 0 {
		return ""
	}
	w, _, _ := strings.Cut(text[i+3:], " ")
	w, ok := strings.CutSuffix(w, ":")
	if !ok || !isNetdevWord(w) {
		return ""
	}
	return w
}

// isDriverWord: a lowercase identifier such as mlx5_core or pci_bus.
func isDriverWord(w string) bool {
	if w == "" || len(w) > 32 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isDeviceWord: a device name with a digit: a PCI address, virtio1, a
// VMBus GUID, 1e100000.ethernet, rxe0.
func isDeviceWord(w string) bool {
	if w == "" || len(w) > 64 {
		return false
	}
	return lettersWithDigit(w, ":._-")
}

// lettersWithDigit: w is ASCII letters, digits and the bytes of extra only,
// with at least one digit.
func lettersWithDigit(w, extra string) bool {
	digit := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return digit
}

// isPCIAddr: "0000:3b:00.0".
func isPCIAddr(w string) bool {
	dom, rest, ok := strings.Cut(w, ":")
	return ok && len(dom) == 4 && len(rest) == 7 && rest[2] == ':' && rest[5] == '.' && isDeviceWord(w)
}

// isNetdevWord: an interface name (IFNAMSIZ-1 characters at most) with a
// digit, or "lo", that is not a known driver or a disk, bus or CPU name.
func isNetdevWord(w string) bool {
	if w == "lo" {
		return true
	}
	if w == "" || len(w) > 15 || knownDrivers[w] || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, p := range notNetdevs {
		if strings.HasPrefix(w, p) {
			return false
		}
	}
	return lettersWithDigit(w, "_.-@")
}

// isNameWord: a device name a known driver or class gives, which need not
// hold a digit ("infiniband rxekmsg:", "infiniband rxe_ens5:").
func isNameWord(w string) bool {
	return w != "" && len(w) <= 64 && !strings.ContainsAny(w, " ()[]<>=,;/")
}
