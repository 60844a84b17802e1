package rxe

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// RDMA netlink (NLDEV) constants that vishvananda/netlink v1.3.1 lacks
// (include/uapi/rdma/rdma_netlink.h).
const (
	nldevCmdPortGet   = 5  // RDMA_NLDEV_CMD_PORT_GET
	nldevAttrDevIndex = 1  // RDMA_NLDEV_ATTR_DEV_INDEX, u32
	nldevAttrDevName  = 2  // RDMA_NLDEV_ATTR_DEV_NAME, string
	nldevAttrPort     = 3  // RDMA_NLDEV_ATTR_PORT_INDEX, u32
	nldevAttrState    = 12 // RDMA_NLDEV_ATTR_PORT_STATE, u8
	nldevAttrPhys     = 13 // RDMA_NLDEV_ATTR_PORT_PHYS_STATE, u8
	nldevAttrNdevIdx  = 50 // RDMA_NLDEV_ATTR_NDEV_INDEX, u32
	nldevAttrNdevName = 51 // RDMA_NLDEV_ATTR_NDEV_NAME, string
)

// nlAttr is one netlink attribute (type without the nested and byte-order
// flags).
type nlAttr struct {
	Type  uint16
	Value []byte
}

// parseNLAttrs splits a netlink message payload into attributes. RDMA
// messages carry attributes right after the netlink header, with no family
// header. Lengths are host-endian, values 4-byte aligned.
func parseNLAttrs(b []byte) ([]nlAttr, error) {
	var out []nlAttr
	for off := 0; off < len(b); {
		if len(b)-off < 4 {
			return out, fmt.Errorf("netlink attribute at offset %d: %d trailing bytes", off, len(b)-off)
		}
		n := int(binary.NativeEndian.Uint16(b[off:]))
		typ := binary.NativeEndian.Uint16(b[off+2:]) & 0x3fff
		if n < 4 || off+n > len(b) {
			return out, fmt.Errorf("netlink attribute at offset %d: length %d out of range", off, n)
		}
		out = append(out, nlAttr{Type: typ, Value: b[off+4 : off+n]})
		off += (n + 3) &^ 3
	}
	return out, nil
}

func (a nlAttr) u32() (uint32, error) {
	if len(a.Value) < 4 {
		return 0, fmt.Errorf("netlink attribute %d: %d bytes, want 4", a.Type, len(a.Value))
	}
	return binary.NativeEndian.Uint32(a.Value), nil
}

func (a nlAttr) u8() (uint8, error) {
	if len(a.Value) < 1 {
		return 0, fmt.Errorf("netlink attribute %d: empty, want 1 byte", a.Type)
	}
	return a.Value[0], nil
}

func (a nlAttr) str() string {
	s, _, _ := strings.Cut(string(a.Value), "\x00")
	return s
}

// parsePortMessage decodes one RDMA_NLDEV_CMD_PORT_GET reply
// (fill_port_info() in drivers/infiniband/core/nldev.c). The netdev is only
// present when it is in the socket's network namespace.
func parsePortMessage(b []byte) (Port, error) {
	var p Port
	attrs, err := parseNLAttrs(b)
	if err != nil {
		return p, err
	}
	var havePort bool
	for _, a := range attrs {
		var v32 uint32
		var v8 uint8
		switch a.Type {
		case nldevAttrDevName:
			p.Device = a.str()
		case nldevAttrPort:
			v32, err = a.u32()
			p.Port, havePort = int(v32), true
		case nldevAttrState:
			v8, err = a.u8()
			p.State = PortState(v8)
		case nldevAttrPhys:
			v8, err = a.u8()
			p.PhysState = PhysState(v8)
		case nldevAttrNdevIdx:
			v32, err = a.u32()
			p.NetdevIndex = int(v32)
		case nldevAttrNdevName:
			p.Netdev = a.str()
		}
		if err != nil {
			return p, err
		}
	}
	if !havePort {
		return p, fmt.Errorf("netlink port message without a port index")
	}
	return p, nil
}
