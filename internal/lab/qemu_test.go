package lab

import (
	"errors"
	"strings"
	"testing"
)

func testGuest(name string, nics ...NIC) Guest {
	return Guest{Name: name, Image: &Image{Kernel: "/img/vmlinuz", Initrd: "/img/base.cpio.gz"},
		NICs: nics, Plan: Plan{Steps: []Step{{Name: "s", Path: "/bin/true"}}}}
}

func TestQemuArgsSingleGuestWithHub(t *testing.T) {
	g := testGuest("bookworm", NIC{Network: "lan"}, NIC{Network: "lan"})
	g.SMP = 4
	args := strings.Join(qemuArgs([]Guest{g}, 0, pathsFor("/run/x", "bookworm")), " ")
	for _, want := range []string{
		"-accel tcg,thread=multi", "-smp 4", "-m 2048", "-nic none", "-nodefaults", "-no-reboot",
		"-kernel /img/vmlinuz -initrd /run/x/bookworm.initrd",
		"-append console=ttyS0 rdinit=/init panic=-1 quiet",
		"-serial file:/run/x/bookworm.console",
		"-chardev socket,id=labch,path=/run/x/bookworm.sock",
		"virtserialport,bus=vser0.0,chardev=labch,name=rocekit.lab",
		"-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:00",
		"-netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:00:01",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q:\n%s", want, args)
		}
	}
	for _, never := range []string{"-netdev user", "-netdev tap", "-netdev bridge", "-enable-kvm"} {
		if strings.Contains(args, never) {
			t.Errorf("args contain %q: %s", never, args)
		}
	}
}

func TestQemuArgsTwoGuestsLinked(t *testing.T) {
	guests := []Guest{testGuest("a", NIC{Network: "wire"}), testGuest("b", NIC{Network: "wire"})}
	if err := validateGuests(guests); err != nil {
		t.Fatal(err)
	}
	a := strings.Join(qemuArgs(guests, 0, pathsFor("/r", "a")), " ")
	b := strings.Join(qemuArgs(guests, 1, pathsFor("/r", "b")), " ")
	if !strings.Contains(a, "dgram,id=n0,local.type=unix,local.path=/r/link-wire-a.sock,remote.type=unix,remote.path=/r/link-wire-b.sock") {
		t.Errorf("guest a is not linked to b: %s", a)
	}
	if !strings.Contains(b, "local.path=/r/link-wire-b.sock,remote.type=unix,remote.path=/r/link-wire-a.sock") {
		t.Errorf("guest b is not linked to a: %s", b)
	}
	if !strings.Contains(a, "mac=52:54:00:00:ff:00") || !strings.Contains(b, "mac=52:54:00:01:ff:00") {
		t.Errorf("the two ends need different MACs:\n%s\n%s", a, b)
	}
}

func TestQemuArgsThreeGuestsOnASegment(t *testing.T) {
	guests := []Guest{testGuest("a", NIC{Network: "lan"}), testGuest("b", NIC{Network: "lan"}),
		testGuest("c", NIC{Network: "lan"}, NIC{Network: "own"})}
	if err := validateGuests(guests); err != nil {
		t.Fatal(err)
	}
	for i, g := range guests {
		args := strings.Join(qemuArgs(guests, i, pathsFor("/r", g.Name)), " ")
		want := "dgram,id=n0,local.type=unix,local.path=/r/link-lan-" + g.Name + ".sock,remote.type=unix,remote.path=/r/hub-lan.sock"
		if !strings.Contains(args, want) {
			t.Errorf("guest %s is not on the segment's hub:\n%s", g.Name, args)
		}
	}
	c := strings.Join(qemuArgs(guests, 2, pathsFor("/r", "c")), " ")
	if !strings.Contains(c, "-netdev hubport,id=n1,hubid=0") {
		t.Errorf("c's own network is not a hub port: %s", c)
	}
	segs := segments(guests, "/r")
	if len(segs) != 1 || strings.Join(segs["lan"], " ") != "/r/link-lan-a.sock /r/link-lan-b.sock /r/link-lan-c.sock" {
		t.Errorf("segments = %v", segs)
	}
}

func TestValidateGuests(t *testing.T) {
	for name, guests := range map[string][]Guest{
		"bad name":       {testGuest("Bad_Name")},
		"duplicate name": {testGuest("a"), testGuest("a")},
		"no image":       {{Name: "a", Plan: Plan{Steps: []Step{{Name: "s", Path: "/x"}}}}},
		"no steps":       {{Name: "a", Image: &Image{}}},
		"two NICs on a segment": {testGuest("a", NIC{Network: "w"}), testGuest("b", NIC{Network: "w"}),
			testGuest("c", NIC{Network: "w"}, NIC{Network: "w"})},
		"two NICs on a link": {testGuest("a", NIC{Network: "w"}, NIC{Network: "w"}), testGuest("b", NIC{Network: "w"})},
		"network name":       {testGuest("a", NIC{Network: "a,b"})},
	} {
		if err := validateGuests(guests); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

func TestPlanValidate(t *testing.T) {
	for name, p := range map[string]Plan{
		"no steps":         {},
		"relative path":    {Steps: []Step{{Name: "s", Path: "bin/x"}}},
		"negative timeout": {Steps: []Step{{Name: "s", Path: "/x", Timeout: -1}}},
		"env":              {Steps: []Step{{Name: "s", Path: "/x"}}, Env: []string{"NOEQUALS"}},
		"collect":          {Steps: []Step{{Name: "s", Path: "/x"}}, Collect: "out"},
	} {
		if p.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
