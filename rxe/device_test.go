package rxe

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDeviceFixtures(t *testing.T) {
	guids := map[string]string{"bookworm": "2c46:1cff:fee4:8c8d", "trixie": "5008:edff:fe3c:6b43"}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			caps := suiteCapture(t, s.name)
			g, err := ParseGUID(guids[s.name])
			if err != nil {
				t.Fatal(err)
			}
			for scen, port := range map[string]Port{
				"rxe0-ipv4":        {Device: "rxe0", Port: 1, State: PortActive, PhysState: PhysLinkUp, Netdev: "v0", LinkLayer: "Ethernet"},
				"rxe0-netdev-down": {Device: "rxe0", Port: 1, State: PortDown, PhysState: PhysDisabled, Netdev: "v0", LinkLayer: "Ethernet"},
			} {
				root := caps[scen].root()
				names, err := root.DeviceNames()
				if err != nil || !cmp.Equal(names, []string{"rxe0"}) {
					t.Errorf("%s: DeviceNames = %v, %v", scen, names, err)
				}
				got, err := root.Device("rxe0")
				if err != nil {
					t.Fatalf("%s: %v", scen, err)
				}
				want := Device{Name: "rxe0", NodeGUID: g, SysImageGUID: g, NodeType: "CA", Parent: "v0", Ports: []Port{port}}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: Device (-want +got):\n%s", scen, d)
				}
				// The port formats exactly like the `rdma link show` the
				// guest printed at the same moment.
				if rdma := strings.TrimSpace(caps[scen].Cmds["rdma-link"]); !strings.HasPrefix(rdma, got.Ports[0].String()+" \n") {
					t.Errorf("%s: Port.String() = %q, rdma link show printed %q", scen, got.Ports[0].String(), rdma)
				}
				if got.Ports[0].Active() != (scen == "rxe0-ipv4") {
					t.Errorf("%s: Active() = %v", scen, got.Ports[0].Active())
				}
			}
			if _, err := caps["rxe0-ipv4"].root().Device("mlx5_0"); !errors.Is(err, ErrDeviceNotFound) {
				t.Errorf("Device(mlx5_0) error = %v", err)
			}
			if _, err := caps["rxe0-ipv4"].root().Port("rxe0", 3); !errors.Is(err, ErrDeviceNotFound) {
				t.Errorf("Port(rxe0, 3) error = %v", err)
			}
		})
	}
}
