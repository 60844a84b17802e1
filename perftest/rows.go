package perftest

import "math"

// BWUnit is the bandwidth unit of a BW table, from its header
// ("BW peak[MB/sec]").
type BWUnit int

// The BW units. perftest divides by 0x100000 for MB/sec and MiB/sec
// (the label changed in 24.07, the number did not) and by 125000000 for
// Gb/sec.
const (
	// UnitUnknown: no table header said (--out_json, --output=bandwidth).
	UnitUnknown BWUnit = iota
	// UnitMiBps: 2^20 bytes/s, printed as "MB/sec" (before 24.07) or
	// "MiB/sec".
	UnitMiBps
	// UnitGbps: 10^9 bit/s, printed as "Gb/sec" (--report_gbits).
	UnitGbps
)

// mibToGbps converts 2^20 bytes/s to 10^9 bit/s: 2^20 * 8 / 1e9.
const mibToGbps = 0.008388608

// String returns "MiB/s", "Gb/s" or "unknown".
func (u BWUnit) String() string {
	switch u {
	case UnitMiBps:
		return "MiB/s"
	case UnitGbps:
		return "Gb/s"
	}
	return "unknown"
}

// ToGbps converts v from u to 10^9 bit/s. It returns NaN for UnitUnknown.
func (u BWUnit) ToGbps(v float64) float64 {
	switch u {
	case UnitMiBps:
		return v * mibToGbps
	case UnitGbps:
		return v
	}
	return math.NaN()
}

// parseBWUnit maps a unit label of a table header to a BWUnit.
func parseBWUnit(label string) BWUnit {
	switch label {
	case "MB/sec", "MiB/sec":
		return UnitMiBps
	case "Gb/sec":
		return UnitGbps
	}
	return UnitUnknown
}

// Row is a result row as Stream delivers it: a BWRow or a LatRow.
type Row interface{ isRow() }

// BWRow is one row of a BW table (ib_send_bw, ib_write_bw, ib_read_bw,
// ib_atomic_bw):
//
//	#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
//	65536      300              20.48              8.45   		   0.000135
//
// With -b each side prints the sum of both directions; with -D and
// --run_infinitely #iterations counts only the sampling window. The BW
// table of perftest 1.x/2.0 has no MsgRate column: MsgRateMpps is NaN.
type BWRow struct {
	Bytes      uint64 // #bytes: message size
	Iterations uint64 // #iterations: iterations x QPs, or completions in the window
	// BWPeakGbps is the best cq_mod window in 10^9 bit/s; 0 when
	// PeakMeasured is false, NaN when the unit is unknown (JSON).
	BWPeakGbps float64
	// BWAvgGbps is the average bandwidth in 10^9 bit/s; NaN when the unit
	// is unknown (JSON).
	BWAvgGbps float64
	// MsgRateMpps is the message rate in 10^6 messages/s.
	MsgRateMpps float64
	// CPUUtilPercent is the CPU_Util[%] column (--cpu_util with -D).
	CPUUtilPercent float64
	// PeakMeasured is false when BW peak was printed as 0: perftest does
	// not measure it with -D, --run_infinitely, -N, -n > 20000 and on the
	// server of a send test, so 0.00 means "not measured", not zero.
	PeakMeasured bool
	// HasCPUUtil is set when the row has the CPU column.
	HasCPUUtil bool
	// Ports holds the per-port columns of --report-per-port (dual port).
	Ports []PortBW
	// Printed holds the BW values as printed, in the unit of the table.
	Printed PrintedBW
	// Line is the 1-based input line of the row (0 for JSON).
	Line int
}

// PrintedBW holds BW values as perftest printed them.
type PrintedBW struct {
	Peak float64 // BW peak as printed (0.00 when not measured)
	Avg  float64 // BW average as printed
	Unit BWUnit  // the unit of the table header
}

// PortBW holds the columns of one port in a --report-per-port row.
type PortBW struct {
	BWGbps      float64 // 10^9 bit/s
	MsgRateMpps float64 // 10^6 messages/s
	BWPrinted   float64 // as printed, in the unit of the table
}

func (BWRow) isRow() {}

// LatRow is one row of a latency table (ib_send_lat, ib_write_lat,
// ib_read_lat, ib_atomic_lat), all times in microseconds:
//
//	#bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
//	2       500          32.71          5202.19      34.14    	       109.39      	349.91 		2184.56 		5202.19
//
// send and write report half the round trip, read and atomic the full round
// trip (Result.FullRTT). perftest drops the 2 largest samples, so TMaxMicros
// is the 3rd largest. With -C the values are cycles although the header
// says usec; the output cannot tell.
//
// perftest 2.x/3.x printed only the first five columns (#bytes
// #iterations t_min t_max t_typical); the others are NaN (not printed) in
// their rows, and null in JSON.
//
// With -D (Duration set) perftest prints only t_avg and the transaction
// rate:
//
//	#bytes        #iterations       t_avg[usec]    tps average
//	2             11901            84.73          5900.98
type LatRow struct {
	Bytes          uint64  // #bytes: message size
	Iterations     uint64  // #iterations
	TMinMicros     float64 // the smallest sample
	TMaxMicros     float64 // the 3rd-largest sample
	TTypicalMicros float64 // the median
	TAvgMicros     float64 // the mean (-D: of the sampling window)
	TStdevMicros   float64 // coarse: perftest truncates each sample to an int
	P99Micros      float64 // 99% percentile
	P999Micros     float64 // 99.9% percentile
	// TPS is the "tps average" of a -D row: transactions per second.
	TPS float64
	// CPUUtilPercent is the CPU_Util[%] column (--cpu_util with -D).
	CPUUtilPercent float64
	// Duration marks a -D row: only TAvgMicros and TPS are set.
	Duration bool
	// HasCPUUtil is set when the row has the CPU column.
	HasCPUUtil bool
	// Line is the 1-based input line of the row (0 for JSON).
	Line int
}

func (LatRow) isRow() {}
