package nic

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"golang.org/x/sys/unix"
)

// TestModeNames: the masks' bits past 31 (25000baseKR_Full is bit 32)
// come from the second word, which the legacy ETHTOOL_GSET cannot carry.
func TestModeNames(t *testing.T) {
	words := []uint32{1<<unix.ETHTOOL_LINK_MODE_10000baseT_Full_BIT | 1<<31, 1 << (unix.ETHTOOL_LINK_MODE_25000baseKR_Full_BIT - 32), 1 << 31}
	got := strings.Join(modeNames(words), ",")
	if got != "10000baseT_Full,25000baseCR_Full,25000baseKR_Full,bit95" {
		t.Errorf("modeNames = %s", got)
	}
	if (LinkSettings{Supported: modeNames(words)}).MaxSupportedMbps() != 25000 {
		t.Error("MaxSupportedMbps")
	}
}

// TestLinkModesOnVeth: the GLINKSETTINGS handshake works on this kernel's
// veth, which reports no modes.
func TestLinkModesOnVeth(t *testing.T) {
	labtest.Veth(t, "lmv0", "lmv1", "198.18.91.1/24")
	s, a, p, err := linkModes("lmv0")
	if err != nil {
		t.Fatalf("GLINKSETTINGS on a veth: %v", err)
	}
	if len(s)+len(a)+len(p) != 0 {
		t.Errorf("veth reports modes %v %v %v", s, a, p)
	}
	if _, _, _, err := linkModes("lo"); err == nil {
		t.Error("lo answered GLINKSETTINGS")
	}
}
