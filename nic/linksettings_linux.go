package nic

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// linkSettingsMaxWords is the kernel's SCHAR_MAX bound on mask words.
const linkSettingsMaxWords = 127

// ethtoolLinkSettings is struct ethtool_link_settings with room for the
// three masks (supported, advertising, lp_advertising).
type ethtoolLinkSettings struct {
	cmd                 uint32
	speed               uint32
	duplex              uint8
	port                uint8
	phyAddress          uint8
	autoneg             uint8
	mdioSupport         uint8
	ethTpMdix           uint8
	ethTpMdixCtrl       uint8
	linkModeMasksNwords int8
	transceiver         uint8
	masterSlaveCfg      uint8
	masterSlaveState    uint8
	rateMatching        uint8
	reserved            [7]uint32
	masks               [3 * linkSettingsMaxWords]uint32
}

type ifreqPtr struct {
	name [unix.IFNAMSIZ]byte
	data uintptr
	_    [16]byte // the union's size
}

// linkModes reads the supported, advertised and partner link modes with
// ETHTOOL_GLINKSETTINGS in the calling thread's namespace, with the
// kernel's handshake: a first call with 0 words answers -N, the number
// of words the masks need.
//
// Similar to: ethtool NAME (the "link modes" lines)
func linkModes(netdev string) (supported, advertised, partner []string, err error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	defer unix.Close(fd)
	var ls ethtoolLinkSettings
	call := func() error {
		var ifr ifreqPtr
		copy(ifr.name[:unix.IFNAMSIZ-1], netdev)
		ls.cmd = unix.ETHTOOL_GLINKSETTINGS
		ifr.data = uintptr(unsafe.Pointer(&ls))
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
		if e != 0 {
			return e
		}
		return nil
	}
	if err := call(); err != nil {
		return nil, nil, nil, err
	}
	n := int(-ls.linkModeMasksNwords)
	if n <= 0 || n > linkSettingsMaxWords {
		return nil, nil, nil, fmt.Errorf("ETHTOOL_GLINKSETTINGS handshake gave %d mask words", ls.linkModeMasksNwords)
	}
	ls = ethtoolLinkSettings{linkModeMasksNwords: int8(n)}
	if err := call(); err != nil {
		return nil, nil, nil, err
	}
	return modeNames(ls.masks[:n]), modeNames(ls.masks[n : 2*n]), modeNames(ls.masks[2*n : 3*n]), nil
}

// modeNames turns a mask into link mode names, in bit order.
func modeNames(words []uint32) []string {
	var out []string
	for w, v := range words {
		for b := 0; b < 32; b++ {
			if v&(1<<b) == 0 {
				continue
			}
			bit := w*32 + b
			if name, ok := linkModeNames[bit]; ok {
				out = append(out, name)
			} else {
				out = append(out, fmt.Sprintf("bit%d", bit))
			}
		}
	}
	return out
}
