package main

import (
	"context"
	"slices"
	"testing"
)

// TestSlurmHosts: -slurm makes every node of the host list a host reached
// with srun (scontrol missing here: the list is expanded by the parser).
func TestSlurmHosts(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	hosts, err := slurmHosts(context.Background(), "gpu[01-02],cpu7", "eth0+eth1")
	if err != nil {
		t.Fatal(err)
	}
	if got := hosts.names(); !slices.Equal(got, []string{"gpu01", "gpu02", "cpu7"}) {
		t.Errorf("names %q", got)
	}
	if h := hosts[1]; h.Target != "srun:gpu02" || !slices.Equal(h.Netdevs, []string{"eth0", "eth1"}) {
		t.Errorf("host %+v", h)
	}
	t.Setenv("SLURM_JOB_NODELIST", "")
	if _, err := slurmHosts(context.Background(), "", "eth0"); err == nil {
		t.Error("outside an allocation: no error")
	}
}
