package irq

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDistributeMlx5(t *testing.T) {
	fs := fixtureFS(t, "mlx5-2node")
	dev, err := fs.Netdev("ens1f0np0")
	if err != nil {
		t.Fatal(err)
	}
	node, _ := fs.NodeCPUs(1)
	before := mustInterrupts(t, "mlx5-2node/proc/interrupts")

	conc := Distribute(dev, before, mustInterrupts(t, "mlx5-2node/after-concentrated/interrupts"), node, Thresholds{})
	if !conc.Concentrated || conc.OK || conc.Idle || conc.Busiest != 0 || conc.BusiestShare != 1 || conc.Total != 2028000 {
		t.Errorf("concentrated: %+v", conc)
	}
	want := []string{
		"8 queue IRQs fired, all on CPU0",
		"8 of 48 queue IRQs fired on CPUs off the NIC's NUMA node (CPUs 24-47,72-95): IRQ 121,122,123,124,125,126,127,128",
	}
	if diff := cmp.Diff(want, conc.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]CPUCount{{0, 2028000}}, conc.PerCPU); diff != "" {
		t.Errorf("PerCPU (-want +got):\n%s", diff)
	}
	if a := conc.PerIRQ[0]; a.IRQ != 121 || a.Queue != 0 || a.Total != 250000 || len(conc.PerIRQ) != 48 {
		t.Errorf("PerIRQ[0] = %+v of %d", a, len(conc.PerIRQ))
	}

	spread := Distribute(dev, before, mustInterrupts(t, "mlx5-2node/after-spread/interrupts"), node, Thresholds{})
	if !spread.OK || spread.CPUsUsed.String() != "24-31" || spread.Busiest != 31 || len(spread.OffNode) != 0 {
		t.Errorf("spread: %+v", spread)
	}
	if diff := cmp.Diff([]string{"8 queue IRQs fired on 8 CPUs (24-31); busiest CPU31 took 13% of 2028000"}, spread.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}

	idle := Distribute(dev, before, before, node, Thresholds{})
	if !idle.Idle || idle.OK || idle.Busiest != -1 || idle.Reasons[0] != "0 queue interrupts, fewer than 100: too little traffic to judge" {
		t.Errorf("idle: %+v", idle)
	}
}

// TestDistributeGuest judges a real pair: netperf between the guest's two
// NICs with the default affinity. eth0's input and output vectors fired on
// CPUs 1 and 2: two IRQs, two CPUs, so it is spread although one did more.
func TestDistributeGuest(t *testing.T) {
	dev, err := fixtureFS(t, "trixie").Netdev("eth0")
	if err != nil {
		t.Fatal(err)
	}
	before := mustInterrupts(t, "trixie/traffic/before/proc/interrupts")
	after := mustInterrupts(t, "trixie/traffic/after/proc/interrupts")
	d := Distribute(dev, before, after, nil, Thresholds{})
	want := Distribution{
		Netdev: "eth0",
		Total:  727,
		PerIRQ: []IRQActivity{
			{IRQ: 27, Name: "virtio1-input.0", Queue: 0, Direction: DirRX, Total: 231, CPUs: []CPUCount{{1, 231}}, Home: 1},
			{IRQ: 28, Name: "virtio1-output.0", Queue: 0, Direction: DirTX, Total: 496, CPUs: []CPUCount{{2, 496}}, Home: 2},
		},
		PerCPU:       []CPUCount{{1, 231}, {2, 496}},
		CPUsUsed:     CPUList{1, 2},
		Busiest:      2,
		BusiestShare: 496.0 / 727,
		OK:           true,
		Reasons:      []string{"2 queue IRQs fired on 2 CPUs (1-2); busiest CPU2 took 68% of 727"},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDistributeStacked: two of three queue IRQs share CPU0, which takes
// 80% of the interrupts: concentrated by share.
func TestDistributeStacked(t *testing.T) {
	dev := Netdev{Name: "eth0", IRQs: []QueueIRQ{
		{IRQ: 40, Name: "eth0", Role: RoleControl, Queue: -1},
		{IRQ: 41, Name: "eth0-TxRx-0", Role: RoleQueue, Queue: 0, Direction: DirRXTX},
		{IRQ: 42, Name: "eth0-TxRx-1", Role: RoleQueue, Queue: 1, Direction: DirRXTX},
		{IRQ: 43, Name: "eth0-TxRx-2", Role: RoleQueue, Queue: 2, Direction: DirRXTX},
	}}
	before, _ := ParseInterrupts(strings.NewReader("  CPU0 CPU1\n 40: 0 0 PCI-MSI 0-edge eth0\n 41: 0 0 PCI-MSI 1-edge eth0-TxRx-0\n 42: 0 0 PCI-MSI 2-edge eth0-TxRx-1\n 43: 0 0 PCI-MSI 3-edge eth0-TxRx-2\n"))
	after, _ := ParseInterrupts(strings.NewReader("  CPU0 CPU1\n 40: 9 9 PCI-MSI 0-edge eth0\n 41: 400 0 PCI-MSI 1-edge eth0-TxRx-0\n 42: 400 0 PCI-MSI 2-edge eth0-TxRx-1\n 43: 0 200 PCI-MSI 3-edge eth0-TxRx-2\n"))
	d := Distribute(dev, before, after, CPUList{0, 1}, Thresholds{})
	if !d.Concentrated || d.OK || d.Total != 1000 {
		t.Errorf("%+v", d)
	}
	if diff := cmp.Diff([]string{"CPU0 took 80% of 1000 queue interrupts, from 2 of 3 IRQs"}, d.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	// A higher threshold lets it pass.
	if d := Distribute(dev, before, after, nil, Thresholds{MinInterrupts: 1, MaxBusiestShare: 0.9}); !d.OK {
		t.Errorf("threshold 0.9: %+v", d)
	}
}

func TestSampleDistribution(t *testing.T) {
	fs := fixtureFS(t, "bookworm")
	dev, _ := fs.Netdev("eth0")
	d, err := fs.SampleDistribution(context.Background(), dev, 10*time.Millisecond, Thresholds{})
	if err != nil || !d.Idle || d.Interval < 10*time.Millisecond {
		t.Errorf("%+v, %v", d, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fs.SampleDistribution(ctx, dev, time.Hour, Thresholds{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestDistributeStray uses the counts the lab saw on bookworm after moving
// eth0's vectors to CPUs 0 and 1: the input IRQ's first interrupt still
// came on its old CPU1, which completes the move on x86. One stray
// interrupt is not stacking.
func TestDistributeStray(t *testing.T) {
	dev, _ := fixtureFS(t, "bookworm").Netdev("eth0")
	before, _ := ParseInterrupts(strings.NewReader("  CPU0 CPU1 CPU2 CPU3\n 27: 0 0 0 0 PCI-MSI 49153-edge virtio1-input.0\n 28: 0 0 0 0 PCI-MSI 49154-edge virtio1-output.0\n"))
	after, _ := ParseInterrupts(strings.NewReader("  CPU0 CPU1 CPU2 CPU3\n 27: 326 1 0 0 PCI-MSI 49153-edge virtio1-input.0\n 28: 0 500 0 0 PCI-MSI 49154-edge virtio1-output.0\n"))
	d := Distribute(dev, before, after, CPUList{0, 1, 2, 3}, Thresholds{})
	if !d.OK || d.PerIRQ[0].Home != 0 || d.PerIRQ[1].Home != 1 || d.CPUsUsed.String() != "0-1" {
		t.Errorf("%+v", d)
	}
	if diff := cmp.Diff([]string{"2 queue IRQs fired on 2 CPUs (0-1); busiest CPU1 took 61% of 827"}, d.Reasons); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Both mostly on CPU1 with a stray on CPU0: concentrated.
	after2, _ := ParseInterrupts(strings.NewReader("  CPU0 CPU1 CPU2 CPU3\n 27: 1 326 0 0 PCI-MSI 49153-edge virtio1-input.0\n 28: 0 500 0 0 PCI-MSI 49154-edge virtio1-output.0\n"))
	d = Distribute(dev, before, after2, nil, Thresholds{})
	if diff := cmp.Diff([]string{"2 queue IRQs fired, all mostly on CPU1 (100% of 827)"}, d.Reasons); diff != "" || !d.Concentrated {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// One Thresholds convention: a zero field is DefaultThresholds', each on
// its own (it used to be all or nothing).
func TestThresholdsWithDefaults(t *testing.T) {
	if got, want := (Thresholds{}).WithDefaults(), DefaultThresholds; got != want {
		t.Errorf("zero: %+v, want %+v", got, want)
	}
	if got, want := (Thresholds{MinInterrupts: 1}).WithDefaults(), (Thresholds{MinInterrupts: 1, MaxBusiestShare: 0.5}); got != want {
		t.Errorf("MinInterrupts only: %+v, want %+v", got, want)
	}
	if got, want := (Thresholds{MaxBusiestShare: 0.9}).WithDefaults(), (Thresholds{MinInterrupts: 100, MaxBusiestShare: 0.9}); got != want {
		t.Errorf("MaxBusiestShare only: %+v, want %+v", got, want)
	}
}
