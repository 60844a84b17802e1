package rxe

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// CounterSource is the sysfs directory of a port that a counter comes from.
type CounterSource string

// Counter sources.
const (
	// SourceHW is ports/N/hw_counters: the driver's own counters (rdma_rxe's
	// sent_pkts, mlx5's out_of_sequence and np_cnp_sent), the ones
	// `rdma statistic show link DEV/N` prints.
	SourceHW CounterSource = "hw_counters"
	// SourcePMA is ports/N/counters: the InfiniBand port counters of the
	// Performance Management Agent (port_xmit_data, symbol_error). Drivers
	// without a MAD interface, rdma_rxe among them, have none.
	SourcePMA CounterSource = "counters"
)

// PortCounters is a snapshot of the counters of one RDMA port. HW holds
// hw_counters, PMA holds counters; a map is nil when its directory is
// absent. The two may share a name (link_downed), so they are kept apart.
//
// port_xmit_data and port_rcv_data count 4-byte words, not bytes: see
// DataBytes.
type PortCounters struct {
	Device string            `json:"device"`
	Port   int               `json:"port"`
	Time   time.Time         `json:"time"`
	HW     map[string]uint64 `json:"hw_counters,omitempty"`
	PMA    map[string]uint64 `json:"counters,omitempty"`
	// Lifespan is hw_counters/lifespan: how long the kernel serves cached
	// hw_counters values before it asks the driver again. It is a setting,
	// not a counter, and is not in HW.
	Lifespan time.Duration `json:"lifespan,omitempty"`
	// Warnings lists the counter files that could not be read or parsed
	// (some drivers answer EINVAL or EOPNOTSUPP for counters they lack).
	// The other counters are still there. Each is a CounterWarning
	// (errors.As); JSON has their messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// CounterWarning is a counter file that could not be read or parsed.
// errors.Is(w, syscall.EOPNOTSUPP) tells why.
type CounterWarning struct {
	Source CounterSource
	Name   string
	Err    error
}

// Error says which file failed and how.
func (w CounterWarning) Error() string {
	return fmt.Sprintf("rxe: counter %s/%s: %v", w.Source, w.Name, w.Err)
}

// Unwrap returns the cause.
func (w CounterWarning) Unwrap() error { return w.Err }

func (c *PortCounters) warn(src CounterSource, name string, err error) {
	c.Warnings = append(c.Warnings, CounterWarning{Source: src, Name: name, Err: err})
}

// PortCounters reads the hw_counters and counters of a port. A missing
// directory is no error (rdma_rxe has no counters/, old kernels no
// hw_counters/); a file that cannot be read or parsed becomes a warning.
// A device or port that does not exist gives ErrDeviceNotFound.
//
// Similar to: rdma statistic show link rxe0/1;
// cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/* /sys/class/infiniband/mlx5_0/ports/1/counters/*
func (r Root) PortCounters(device string, port int) (PortCounters, error) {
	c := PortCounters{Device: device, Port: port, Time: time.Now()}
	dir := path.Join(classInfiniband, device, "ports", strconv.Itoa(port))
	if !r.exists(dir) {
		return c, &Error{Op: "read port counters", Name: device + "/" + strconv.Itoa(port), Kind: ErrDeviceNotFound, Err: fs.ErrNotExist}
	}
	c.HW = r.readCounterDir(&c, dir, SourceHW)
	c.PMA = r.readCounterDir(&c, dir, SourcePMA)
	return c, nil
}

// readCounterDir reads every file of dir/src; nil when the directory is
// absent.
func (r Root) readCounterDir(c *PortCounters, dir string, src CounterSource) map[string]uint64 {
	ents, err := fs.ReadDir(r.fs(), path.Join(dir, string(src)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.warn(src, "", err)
		return nil
	}
	m := make(map[string]uint64, len(ents))
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		s, err := r.readString(path.Join(dir, string(src), name))
		if err != nil {
			c.warn(src, name, err)
			continue
		}
		v, err := parseCounterValue(s)
		if err != nil {
			c.warn(src, name, err)
			continue
		}
		if src == SourceHW && name == "lifespan" {
			c.Lifespan = time.Duration(v) * time.Millisecond
			continue
		}
		m[name] = v
	}
	return m
}

// parseCounterValue parses the decimal content of a counter file.
func parseCounterValue(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, parseError("counter", s, err)
	}
	return v, nil
}

// Counter returns a counter by name and where it came from; hw_counters
// wins when both directories have the name.
func (c PortCounters) Counter(name string) (uint64, CounterSource, bool) {
	if v, ok := c.HW[name]; ok {
		return v, SourceHW, true
	}
	if v, ok := c.PMA[name]; ok {
		return v, SourcePMA, true
	}
	return 0, "", false
}

// Names lists the counter names of both directories, sorted, each once.
func (c PortCounters) Names() []string {
	seen := maps.Clone(c.HW)
	if seen == nil {
		seen = map[string]uint64{}
	}
	maps.Copy(seen, c.PMA)
	return slices.Sorted(maps.Keys(seen))
}

// DataBytes returns port_xmit_data and port_rcv_data of counters/ in
// bytes: the PMA counts them in 4-byte words. ok is false when either is
// missing.
//
// Similar to: echo $(( $(cat /sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data) * 4 ))
func (c PortCounters) DataBytes() (xmit, rcv uint64, ok bool) {
	x, okx := c.PMA["port_xmit_data"]
	r, okr := c.PMA["port_rcv_data"]
	return x * 4, r * 4, okx && okr
}
