package report

import (
	"strings"
	"testing"
)

func TestCheckPreflight(t *testing.T) {
	near := HostFacts{Role: "near", Host: "a", Kernel: "6.1.0-50-amd64", Model: "Mellanox ConnectX-5",
		NIC:          NICFingerprint{Netdev: "ens1f0np0", Driver: "mlx5_core", DriverVersion: "4.7-3.2.9", Firmware: "16.26.1040", SpeedMbps: 10000, Duplex: "Full", NUMANode: 1, NUMANodeCPUs: "8-15"},
		LinkDetected: true, MaxSupportedMbps: 25000, IRQBalance: true, Governor: "powersave×16",
		Sysctls:        map[string]string{"net.core.rmem_max": "212992", "net.core.wmem_max": "4194304"},
		FirewallBlocks: []string{"tcp/12865: inet filter input: tcp dport 12865 drop (line 5)"}, Firewalld: "active"}
	far := near
	far.Role, far.Host, far.Kernel, far.LinkDetected, far.FirewallBlocks, far.IRQBalance, far.Governor = "far", "b", "6.12.117+deb13-amd64", false, nil, false, ""
	far.NIC.Firmware = "16.35.2000"
	far.Sysctls = map[string]string{"net.core.rmem_max": "4194304", "net.core.wmem_max": "4194304"}
	fs := CheckPreflight([]HostFacts{near, far}, PreflightAsk{SocketBufferBytes: 2 << 20})
	got := map[string][]string{}
	for _, f := range fs {
		got[f.Rule] = append(got[f.Rule], string(f.Severity)+": "+f.Summary)
	}
	want := map[string][]string{
		RuleFirewall:            {"critical: near (a): the firewall stops tcp/12865: inet filter input: tcp dport 12865 drop (line 5)"},
		RuleLinkDown:            {"critical: far (b): ens1f0np0 has no link"},
		RuleDriverOld:           {"warning: near (a): mlx5_core 4.7-3.2.9 is older than 5.x", "warning: far (b): mlx5_core 4.7-3.2.9 is older than 5.x"},
		RuleLinkSlow:            {"warning: near (a): ens1f0np0 linked at 10000 Mb/s of the 25000 Mb/s it supports"},
		RuleBufferLimit:         {"warning: near (a): net.core.rmem_max is 212992, under the 2097152 bytes the test asks for its socket buffers"},
		RuleHostsDiffer:         {"warning: near and far differ: firmware 16.26.1040 vs 16.35.2000; kernel 6.1.0-50-amd64 vs 6.12.117+deb13-amd64"},
		RuleNICIdentity:         {"info: near (a): ens1f0np0: Mellanox ConnectX-5, driver mlx5_core 4.7-3.2.9, firmware 16.26.1040, NUMA node 1, CPUs 8-15", "info: far (b): ens1f0np0: Mellanox ConnectX-5, driver mlx5_core 4.7-3.2.9, firmware 16.35.2000, NUMA node 1, CPUs 8-15"},
		RulePreflightIRQBalance: {"info: near (a): irqbalance is running"},
		RulePreflightGovernor:   {"info: near (a): cpufreq governor is powersave×16"},
		// far: firewalld runs and nothing it lists stops the ports.
		RuleFirewalld: {"info: far (b): firewalld is active"},
	}
	for rule, w := range want {
		if strings.Join(got[rule], "\n") != strings.Join(w, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", rule, got[rule], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rules %v", got)
	}
	if fs[0].Severity != SeverityCritical {
		t.Errorf("not sorted: %v", fs[0])
	}
}
