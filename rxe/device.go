package rxe

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Device is an RDMA device as sysfs shows it (/sys/class/infiniband/NAME).
type Device struct {
	Name            string `json:"name"`
	NodeGUID        GUID   `json:"node_guid"`
	SysImageGUID    GUID   `json:"sys_image_guid"`
	NodeType        string `json:"node_type"` // "CA"
	FirmwareVersion string `json:"fw_ver,omitempty"`
	// Parent is the netdev of a soft-RoCE device (rxe's "parent" file).
	Parent string `json:"parent,omitempty"`
	Ports  []Port `json:"ports"`
}

// DeviceNames lists the RDMA devices, sorted. A kernel without RDMA has no
// /sys/class/infiniband: the list is then empty.
//
// Similar to: ls /sys/class/infiniband
func (r Root) DeviceNames() ([]string, error) {
	ents, err := fs.ReadDir(r.fs(), classInfiniband)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names, nil
}

// Device reads an RDMA device and its ports.
//
// Similar to: rdma dev show NAME; rdma link show NAME/
func (r Root) Device(name string) (Device, error) {
	d := Device{Name: name}
	dir := path.Join(classInfiniband, name)
	if !r.exists(dir) {
		return d, &Error{Op: "read device", Name: name, Kind: ErrDeviceNotFound, Err: fs.ErrNotExist}
	}
	var err error
	if d.NodeGUID, err = r.readGUID(path.Join(dir, "node_guid")); err != nil {
		return d, err
	}
	if d.SysImageGUID, err = r.readGUID(path.Join(dir, "sys_image_guid")); err != nil {
		return d, err
	}
	if s, err := r.readString(path.Join(dir, "node_type")); err == nil {
		// "1: CA"
		_, t, _ := strings.Cut(s, ": ")
		d.NodeType = t
	}
	d.FirmwareVersion, _ = r.readString(path.Join(dir, "fw_ver"))
	d.Parent, _ = r.readString(path.Join(dir, "parent"))
	ports, err := r.portNumbers(name)
	if err != nil {
		return d, err
	}
	for _, p := range ports {
		pt, err := r.Port(name, p)
		if err != nil {
			return d, err
		}
		d.Ports = append(d.Ports, pt)
	}
	return d, nil
}

func (r Root) readGUID(name string) (GUID, error) {
	s, err := r.readString(name)
	if err != nil {
		return GUID{}, err
	}
	return ParseGUID(s)
}

// portNumbers lists a device's port numbers in order.
func (r Root) portNumbers(device string) ([]int, error) {
	ents, err := fs.ReadDir(r.fs(), path.Join(classInfiniband, device, "ports"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Op: "read ports", Name: device, Kind: ErrDeviceNotFound, Err: err}
		}
		return nil, err
	}
	var ports []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			ports = append(ports, n)
		}
	}
	slices.Sort(ports)
	return ports, nil
}

// Port reads the state of one port from sysfs. Netdev is the device's
// parent (rxe) or the netdev of GID 0 (hardware RoCE); empty for InfiniBand.
//
// Similar to: rdma link show DEVICE/PORT
func (r Root) Port(device string, port int) (Port, error) {
	p := Port{Device: device, Port: port}
	dir := path.Join(classInfiniband, device, "ports", strconv.Itoa(port))
	s, err := r.readString(path.Join(dir, "state"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return p, &Error{Op: "read port", Name: device + "/" + strconv.Itoa(port), Kind: ErrDeviceNotFound, Err: err}
		}
		return p, err
	}
	if p.State, err = ParsePortState(s); err != nil {
		return p, err
	}
	if s, err = r.readString(path.Join(dir, "phys_state")); err != nil {
		return p, err
	}
	if p.PhysState, err = ParsePhysState(s); err != nil {
		return p, err
	}
	p.LinkLayer, _ = r.readString(path.Join(dir, "link_layer"))
	if parent, err := r.readString(path.Join(classInfiniband, device, "parent")); err == nil {
		p.Netdev = parent
	} else if nd, err := r.readString(path.Join(dir, "gid_attrs", "ndevs", "0")); err == nil {
		p.Netdev = nd
	}
	return p, nil
}
