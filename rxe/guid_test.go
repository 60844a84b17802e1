package rxe

import (
	"encoding/json"
	"errors"
	"net"
	"slices"
	"testing"
)

func TestParseGUID(t *testing.T) {
	g, err := ParseGUID("2c46:1cff:fee4:8c8d\n") // testdata/bookworm node_guid
	if err != nil {
		t.Fatal(err)
	}
	if want := (GUID{0x2c, 0x46, 0x1c, 0xff, 0xfe, 0xe4, 0x8c, 0x8d}); g != want {
		t.Errorf("ParseGUID = %v, want %v", g, want)
	}
	if g.String() != "2c46:1cff:fee4:8c8d" {
		t.Errorf("String() = %q", g.String())
	}
	for _, in := range []string{"", "2c46:1cff:fee4", "2c46-1cff:fee4:8c8d", "2c46:1cff:fee4:8c8x"} {
		if _, err := ParseGUID(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseGUID(%q) error = %v", in, err)
		}
	}
}

// netlinkForm prints g the way vishvananda/netlink v1.3.1 does.
func netlinkForm(g GUID) string {
	r := g
	slices.Reverse(r[:])
	return net.HardwareAddr(r[:]).String()
}

func TestGUIDFromNetlink(t *testing.T) {
	// go-deps.md: sysfs 5054:00ff:fe12:3456 comes from netlink v1.3.1 as
	// "56:34:12:fe:ff:00:54:50"; the lab test compares live values too.
	g, err := guidFromNetlink("56:34:12:fe:ff:00:54:50")
	if err != nil {
		t.Fatal(err)
	}
	if g.String() != "5054:00ff:fe12:3456" {
		t.Errorf("guidFromNetlink = %v", g)
	}
	if _, err := guidFromNetlink("56:34:12:fe:ff:00"); !errors.Is(err, ErrParse) {
		t.Errorf("6-byte MAC: %v", err)
	}
}

func FuzzParseGUID(f *testing.F) {
	f.Add("2c46:1cff:fee4:8c8d\n")
	f.Add("56:34:12:fe:ff:00:54:50")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		if g, err := guidFromNetlink(s); err == nil {
			// Reversing twice gives the library's bytes back.
			back, err := guidFromNetlink(netlinkForm(g))
			if err != nil || back != g {
				t.Fatalf("netlink form of %q: %v %v", s, back, err)
			}
		}
		g, err := ParseGUID(s)
		if err != nil {
			return
		}
		if g2, err := ParseGUID(g.String()); err != nil || g2 != g {
			t.Fatalf("round trip of %q: %v %v", s, g2, err)
		}
	})
}

// TestGUIDJSONRoundTrip: a Device's GUIDs cross JSON both ways.
func TestGUIDJSONRoundTrip(t *testing.T) {
	g, err := ParseGUID("6c6a:e5ff:fe00:f29c")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Device{Name: "rxe0", NodeGUID: g})
	var d Device
	if err := json.Unmarshal(b, &d); err != nil || d.NodeGUID != g {
		t.Errorf("%s: %v %v", b, d.NodeGUID, err)
	}
	if err := json.Unmarshal([]byte(`{"node_guid":"xyz"}`), &d); !errors.Is(err, ErrParse) {
		t.Errorf("bad GUID: %v", err)
	}
}
