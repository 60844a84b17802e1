package nic

import "testing"

func TestMaxSupportedMbps(t *testing.T) {
	// The modes a ConnectX-5 25G port reports (kernel link mode names).
	ls := LinkSettings{SpeedMbps: 10000, Supported: []string{"1000baseKX_Full", "10000baseKR_Full", "25000baseCR_Full", "25000baseKR_Full", "25000baseSR_Full", "Autoneg", "FIBRE", "Pause"}}
	if got := ls.MaxSupportedMbps(); got != 25000 {
		t.Errorf("MaxSupportedMbps = %d", got)
	}
	for mode, want := range map[string]int{"2500baseT_Full": 2500, "100000baseCR4_Full": 100000, "10baseT_Half": 10, "Autoneg": 0, "base": 0, "xbaseT": 0, "": 0} {
		if got := LinkModeMbps(mode); got != want {
			t.Errorf("LinkModeMbps(%q) = %d, want %d", mode, got, want)
		}
	}
	if (LinkSettings{}).MaxSupportedMbps() != 0 {
		t.Error("no modes: want 0")
	}
}
