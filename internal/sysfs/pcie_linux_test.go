package sysfs

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"
)

func TestPCIeLinkDegraded(t *testing.T) {
	r := NewRoot("testdata/pcie-x8-of-x16")
	l, err := r.PCIeLink("0000:01:00.0")
	if err != nil {
		t.Fatal(err)
	}
	if want := (PCIeLink{CurrentGTps: 16, CurrentWidth: 8, MaxGTps: 32, MaxWidth: 16}); l != want || !l.Known() {
		t.Errorf("got %+v, want %+v", l, want)
	}
	l, err = r.PCIeLink("0000:03:00.0")
	if err != nil || l != (PCIeLink{CurrentGTps: 32, CurrentWidth: 16, MaxGTps: 32, MaxWidth: 16}) {
		t.Errorf("full link: %+v %v", l, err)
	}
	if _, err := r.PCIeLink("0000:09:00.0"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent function: %v", err)
	}
	if _, err := r.PCIeLink("../../etc"); err == nil {
		t.Error("not an address accepted")
	}
	if _, err := NewRootFS(fstest.MapFS{}).PCIeLink("0000:01:00.0"); !errors.Is(err, ErrNoOSPath) {
		t.Errorf("fs.FS root: %v", err)
	}
}

// The live system: every function procfs lists reads without error (on
// the development VM: virtio and QEMU's bridges, whose link files say
// Unknown or are absent).
func TestPCIeLinkLive(t *testing.T) {
	ents, err := os.ReadDir("/sys/bus/pci/devices")
	if err != nil || len(ents) == 0 {
		t.Skipf("no PCI functions here: %v", err)
	}
	for _, e := range ents {
		l, err := Root{}.PCIeLink(e.Name())
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
		t.Logf("%s: %+v", e.Name(), l)
	}
}
