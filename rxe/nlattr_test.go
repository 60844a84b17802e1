package rxe

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// attr encodes one netlink attribute as the kernel does (host-endian
// header, value padded to 4 bytes).
func attr(typ uint16, v []byte) []byte {
	b := make([]byte, 4, 4+len(v)+3)
	binary.NativeEndian.PutUint16(b, uint16(4+len(v)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }

// portMessage is a PORT_GET reply for rxe0/1 on v0 (ifindex 5), with the
// attributes fill_port_info() puts around the ones we read.
func portMessage() []byte {
	var m []byte
	m = append(m, attr(nldevAttrDevIndex, u32(2))...)
	m = append(m, attr(nldevAttrDevName, []byte("rxe0\x00"))...)
	m = append(m, attr(nldevAttrPort, u32(1))...)
	m = append(m, attr(4, binary.NativeEndian.AppendUint64(nil, 0x10000))...) // CAP_FLAGS
	m = append(m, attr(8, binary.NativeEndian.AppendUint64(nil, 0))...)       // SUBNET_PREFIX
	m = append(m, attr(nldevAttrState, []byte{4})...)
	m = append(m, attr(nldevAttrPhys, []byte{5})...)
	m = append(m, attr(nldevAttrNdevIdx, u32(5))...)
	m = append(m, attr(nldevAttrNdevName, []byte("v0\x00"))...)
	return m
}

func TestParsePortMessage(t *testing.T) {
	got, err := parsePortMessage(portMessage())
	if err != nil {
		t.Fatal(err)
	}
	want := Port{Device: "rxe0", Port: 1, State: PortActive, PhysState: PhysLinkUp, Netdev: "v0", NetdevIndex: 5}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The netdev is left out when it lives in another namespace.
	m := portMessage()
	cut := len(m) - len(attr(nldevAttrNdevIdx, u32(5))) - len(attr(nldevAttrNdevName, []byte("v0\x00")))
	got, err = parsePortMessage(m[:cut])
	if err != nil || got.Netdev != "" || got.NetdevIndex != 0 || got.State != PortActive {
		t.Errorf("without netdev: %+v, %v", got, err)
	}
}

func TestParsePortMessageErrors(t *testing.T) {
	for name, m := range map[string][]byte{
		"truncated header": portMessage()[:len(portMessage())-2],
		"no port":          attr(nldevAttrDevName, []byte("rxe0\x00")),
		"short u32":        attr(nldevAttrPort, []byte{1, 0}),
		"empty u8":         append(attr(nldevAttrPort, u32(1)), attr(nldevAttrState, nil)...),
		"length past end":  {40, 0, 3, 0, 1, 0, 0, 0},
		"length below 4":   {2, 0, 3, 0},
	} {
		if _, err := parsePortMessage(m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzParsePortMessage(f *testing.F) {
	f.Add(portMessage())
	f.Add([]byte{})
	f.Add([]byte{4, 0, 3, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePortMessage(b)
		if err == nil && p.Port < 0 {
			t.Fatalf("negative port %d", p.Port)
		}
	})
}
