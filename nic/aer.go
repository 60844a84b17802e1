package nic

import (
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// AERCounts are a PCI function's Advanced Error Reporting counters
// (/sys/bus/pci/devices/ADDR/aer_dev_correctable, aer_dev_fatal,
// aer_dev_nonfatal): errors "as seen by the device", by the kernel's name.
// Corrected errors (replays, bad TLPs) cost PCIe bandwidth without a
// message; a round whose counters grew ran on a sick link.
type AERCounts struct {
	Correctable AERFile `json:"correctable"`
	Fatal       AERFile `json:"fatal"`
	NonFatal    AERFile `json:"nonfatal"`
}

// AERFile is one AER file: each counter by name in file order and the
// kernel's TOTAL_ERR_* line (which can be below the sum: one message may
// report several errors).
type AERFile struct {
	Names  []string          `json:"names,omitempty"`
	Counts map[string]uint64 `json:"counts,omitempty"`
	Total  uint64            `json:"total"`
}

// Sub is what grew since before, counter by counter (a counter missing
// before counts from 0); a counter that went down (the device was reset)
// is 0.
func (f AERFile) Sub(before AERFile) AERFile {
	d := AERFile{Names: f.Names, Counts: make(map[string]uint64, len(f.Counts)), Total: sat(f.Total, before.Total)}
	for _, n := range f.Names {
		d.Counts[n] = sat(f.Counts[n], before.Counts[n])
	}
	return d
}

// Sub is what grew in each file since before.
func (c AERCounts) Sub(before AERCounts) AERCounts {
	return AERCounts{Correctable: c.Correctable.Sub(before.Correctable), Fatal: c.Fatal.Sub(before.Fatal), NonFatal: c.NonFatal.Sub(before.NonFatal)}
}

// Total is the sum of the three files' totals.
func (c AERCounts) Total() uint64 { return c.Correctable.Total + c.Fatal.Total + c.NonFatal.Total }

func sat(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// ParseAERFile parses one AER file. Names are everything before the last
// field: kernels from 4.19 print "Receiver Error 2" and "RELAY_NUM
// Rollover 0", later ones "RxErr 0" (prometheus/procfs v0.23.0 reads only
// the latter and fails the whole file on the former). A bad line is an
// ErrParse error with its number; the lines before it are kept.
func ParseAERFile(b []byte) (AERFile, error) {
	f := AERFile{Counts: map[string]uint64{}}
	for i, line := range strings.Split(sysfs.TrimNewline(string(b)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		cut := strings.LastIndexAny(line, " \t")
		if cut < 0 {
			return f, parseError("AER", i+1, line, nil)
		}
		name, num := strings.Join(strings.Fields(line[:cut]), " "), line[cut+1:] // runs of blanks or tabs, as terminals leave them
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil || name == "" {
			return f, parseError("AER", i+1, line, err)
		}
		if strings.HasPrefix(name, "TOTAL_ERR_") {
			f.Total = v
			continue
		}
		if _, dup := f.Counts[name]; !dup {
			f.Names = append(f.Names, name)
		}
		f.Counts[name] = v
	}
	return f, nil
}

// AER reads the AER counters of the PCI function at address. A function
// without AER (virtio, a VM without AER, a plain PCI bus) is
// ErrNotSupported; a file that does not parse keeps the others.
//
// Similar to: cat /sys/bus/pci/devices/ADDR/aer_dev_*
func (r Root) AER(address string) (AERCounts, error) {
	dev, err := r.sys().PCIFunction(address)
	if err != nil {
		return AERCounts{}, err
	}
	var c AERCounts
	var errs []error
	found := 0
	for _, f := range []struct {
		name string
		into *AERFile
	}{{"aer_dev_correctable", &c.Correctable}, {"aer_dev_fatal", &c.Fatal}, {"aer_dev_nonfatal", &c.NonFatal}} {
		b, err := r.sys().ReadFile(path.Join(dev.Path, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found++
		if err == nil {
			*f.into, err = ParseAERFile(b)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if found == 0 {
		return c, ErrNotSupported
	}
	return c, errors.Join(errs...)
}
