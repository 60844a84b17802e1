package kmsg

import "strings"

// Filter keeps the records of some drivers, devices and netdevs. A record
// is kept when it matches any of the non-empty lists; the zero Filter
// keeps every record.
type Filter struct {
	// Drivers match Source.Driver exactly or as a family prefix: "mlx5"
	// keeps mlx5_core and mlx5_ib, "mlx4" keeps mlx4_core and mlx4_en.
	// "rdma_rxe" (or "rxe") also keeps "infiniband rxeN:" lines.
	Drivers []string
	// Netdevs match Source.Netdev ("eth0", "ens1f0np0").
	Netdevs []string
	// Devices match Source.Device ("0000:3b:00.0", "rxe0", "virtio1").
	Devices []string
}

// Match reports whether rec is kept.
func (f Filter) Match(rec Record) bool {
	if len(f.Drivers) == 0 && len(f.Netdevs) == 0 && len(f.Devices) == 0 {
		return true
	}
	for _, d := range f.Drivers {
		if driverMatches(rec.Source, d) {
			return true
		}
	}
	for _, n := range f.Netdevs {
		if n != "" && rec.Source.Netdev == n {
			return true
		}
	}
	for _, d := range f.Devices {
		if d != "" && rec.Source.Device == d {
			return true
		}
	}
	return false
}

// Apply returns the records f keeps, in order.
//
// Similar to: dmesg | grep -E 'mlx5_core|eth0'
func (f Filter) Apply(recs []Record) []Record {
	var out []Record
	for _, r := range recs {
		if f.Match(r) {
			out = append(out, r)
		}
	}
	return out
}

// driverMatches: exact, a family prefix ("mlx5" for mlx5_core), and the
// rxe aliases (rdma_rxe, rxe ↔ "infiniband rxe0").
func driverMatches(s Source, want string) bool {
	d := s.Driver
	switch {
	case want == "":
		return false
	case d == want, strings.HasPrefix(d, want+"_"):
		return true
	case (want == "rdma_rxe" || want == "rxe") && (d == "rdma_rxe" || d == "rxe" ||
		d == "infiniband" && strings.HasPrefix(s.Device, "rxe")):
		return true
	case !strings.Contains(want, "_") && strings.HasPrefix(d, want) && len(d) > len(want) && d[len(want)] == '_':
		return true
	}
	return false
}

// Cursor remembers where a log was read up to, so that a later read
// returns only what came after. The zero Cursor is "before everything".
type Cursor struct {
	// Last is the last record read; Valid says whether there was one.
	Last  Record
	Valid bool
	// tail holds up to anchorLen records ending with Last, to find Last
	// again in a later read when there are no sequence numbers.
	tail []Record
}

const anchorLen = 3

// CursorOf returns the cursor after recs.
func CursorOf(recs []Record) Cursor {
	if len(recs) == 0 {
		return Cursor{}
	}
	start := max(0, len(recs)-anchorLen)
	return Cursor{Last: recs[len(recs)-1], Valid: true, tail: append([]Record(nil), recs[start:]...)}
}

// After returns the records of recs (a later read of the same log) that
// came after the cursor:
//
//   - with /dev/kmsg sequence numbers, those with a higher sequence
//     number; if every number is lower or equal (the kernel rebooted, or
//     the reads come from different hosts), all of recs;
//   - else, the records after the cursor's last record found again in recs
//     (the same text and time, and the records before it the same); when it
//     is no longer there (the ring buffer wrapped past it, or dmesg -C),
//     those with a later timestamp, or all of recs when there are no
//     timestamps.
func (c Cursor) After(recs []Record) []Record {
	if !c.Valid {
		return recs
	}
	if last, ok := lastSeq(recs); c.Last.HasSeq && ok {
		if last < c.Last.Seq {
			return recs // sequence went backwards: a new boot
		}
		for i, r := range recs {
			if r.HasSeq && r.Seq > c.Last.Seq {
				return recs[i:]
			}
		}
		return nil
	}
	if i := c.find(recs); i >= 0 {
		return recs[i+1:]
	}
	if c.Last.HasTime {
		for i, r := range recs {
			if r.HasTime && r.Micros > c.Last.Micros {
				return recs[i:]
			}
		}
		if n := len(recs); n > 0 && recs[n-1].HasTime {
			return nil
		}
	}
	return recs
}

// find returns the index in recs of the cursor's last record, checked
// against the records before it, searching from the end; -1 when absent.
func (c Cursor) find(recs []Record) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if !sameRecord(recs[i], c.Last) {
			continue
		}
		ok := true
		for k := 1; k < len(c.tail); k++ {
			j := i - k
			if j < 0 {
				break // the log was cut before here: accept what matched
			}
			if !sameRecord(recs[j], c.tail[len(c.tail)-1-k]) {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

func sameRecord(a, b Record) bool {
	return a.Text == b.Text && a.HasTime == b.HasTime && a.Micros == b.Micros &&
		a.HasSeq == b.HasSeq && a.Seq == b.Seq
}

// Since returns the records of after that are not in before: the lines a
// round added to the kernel log.
//
// Similar to: dmesg -r > before; …; dmesg -r | diff before - | grep '^>'
func Since(before, after []Record) []Record { return CursorOf(before).After(after) }

// lastSeq returns the sequence number of the last record that has one.
func lastSeq(recs []Record) (uint64, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].HasSeq {
			return recs[i].Seq, true
		}
	}
	return 0, false
}
