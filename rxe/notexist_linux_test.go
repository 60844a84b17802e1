package rxe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// TestHostDeviceNotExist reads an RDMA device that does not exist under
// the host's real /sys: every read fails with ErrDeviceNotFound, which
// fs.ErrNotExist matches too. The rxe link calls (netlink) on a device
// that does not exist say the same when the kernel has RDMA.
func TestHostDeviceNotExist(t *testing.T) {
	r := Root(sysroot.Dir("/"))
	dev := fmt.Sprintf("rocekit-nosuch-%d", os.Getpid())
	reads := map[string]error{}
	_, reads["Device"] = r.Device(dev)
	_, reads["Port"] = r.Port(dev, 1)
	_, reads["PortCounters"] = r.PortCounters(dev, 1)
	_, reads["GIDTable"] = r.GIDTable(dev, 1)
	if h, err := Open(Options{}); err == nil {
		defer h.Close()
		_, reads["LinkByName"] = h.LinkByName(context.Background(), dev)
	} else if !errors.Is(err, ErrNoRDMA) {
		t.Errorf("Open: %v", err)
	}
	for op, err := range reads {
		if !errors.Is(err, ErrDeviceNotFound) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s(%s) = %v, want ErrDeviceNotFound and fs.ErrNotExist", op, dev, err)
		}
	}
}
