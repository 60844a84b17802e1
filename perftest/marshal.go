package perftest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/rocekit/rocekit/internal/jsonfloat"
)

// The JSON forms below are the perftest part of the contract of
// examples/parse: tool, test, kind, header {device, qps, connection, mtu,
// link_type, gid_index}, bw [{bytes, iterations, bw_peak_gbps, bw_avg_gbps,
// msg_rate_mpps}], lat [{bytes, iterations, t_min_us, t_max_us,
// t_typical_us, t_avg_us, t_stdev_us, p99_us, p999_us}] (duration rows:
// t_avg_us, tps), value, warnings, error {kind, message}. Values that are
// inf or nan, peaks that were not measured, and columns an old table does
// not have (t_avg to p999_us of perftest 2.x/3.x, msg_rate_mpps of 1.x),
// are null.

type jsonResult struct {
	Tool       string          `json:"tool"`
	Test       string          `json:"test,omitempty"`
	Kind       ResultKind      `json:"kind,omitempty"`
	Header     *jsonHeader     `json:"header,omitempty"`
	BW         []jsonBW        `json:"bw,omitempty"`
	Lat        []any           `json:"lat,omitempty"`
	Value      json.RawMessage `json:"value,omitempty"`
	Values     []*float64      `json:"values,omitempty"`
	ReportBoth *jsonReportBoth `json:"report_both,omitempty"`
	Server     bool            `json:"server,omitempty"`
	FullRTT    bool            `json:"full_rtt,omitempty"`
	LegacyJSON bool            `json:"legacy_json,omitempty"`
	Warnings   []string        `json:"warnings"`
	Error      *Error          `json:"error,omitempty"`
}

type jsonHeader struct {
	Device           string  `json:"device"`
	QPs              int     `json:"qps"`
	Connection       string  `json:"connection"`
	MTU              int     `json:"mtu"`
	LinkType         string  `json:"link_type"`
	GIDIndex         *int    `json:"gid_index"`
	Verb             string  `json:"verb,omitempty"`
	AtomicOp         string  `json:"atomic_op,omitempty"`
	Bidirectional    bool    `json:"bidirectional,omitempty"`
	Transport        string  `json:"transport,omitempty"`
	TXDepth          int     `json:"tx_depth,omitempty"`
	RXDepth          int     `json:"rx_depth,omitempty"`
	CQModeration     int     `json:"cq_moderation,omitempty"`
	MaxInlineBytes   *int    `json:"max_inline_bytes,omitempty"`
	OutstandingReads *int    `json:"outstanding_reads,omitempty"`
	RDMACM           bool    `json:"rdma_cm,omitempty"`
	DataExchange     string  `json:"data_exchange,omitempty"`
	BWUnit           string  `json:"bw_unit,omitempty"`
	BWUnitLabel      string  `json:"bw_unit_label,omitempty"`
	Unknown          []Field `json:"unknown,omitempty"`
}

type jsonBW struct {
	Bytes          uint64   `json:"bytes"`
	Iterations     uint64   `json:"iterations"`
	BWPeakGbps     *float64 `json:"bw_peak_gbps"`
	BWAvgGbps      *float64 `json:"bw_avg_gbps"`
	MsgRateMpps    *float64 `json:"msg_rate_mpps"`
	PeakMeasured   bool     `json:"peak_measured"`
	CPUUtilPercent *float64 `json:"cpu_util_percent,omitempty"`
}

type jsonLat struct {
	Bytes          uint64   `json:"bytes"`
	Iterations     uint64   `json:"iterations"`
	TMinMicros     *float64 `json:"t_min_us"`
	TMaxMicros     *float64 `json:"t_max_us"`
	TTypicalMicros *float64 `json:"t_typical_us"`
	TAvgMicros     *float64 `json:"t_avg_us"`
	TStdevMicros   *float64 `json:"t_stdev_us"`
	P99Micros      *float64 `json:"p99_us"`
	P999Micros     *float64 `json:"p999_us"`
}

type jsonLatDuration struct {
	Bytes      uint64   `json:"bytes"`
	Iterations uint64   `json:"iterations"`
	TAvgMicros *float64 `json:"t_avg_us"`
	TPS        *float64 `json:"tps"`
}

type jsonReportBoth struct {
	Local  []jsonBW `json:"local"`
	Remote []jsonBW `json:"remote"`
}

// num returns a pointer to v, or nil (JSON null) when v is inf or nan.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func optInt(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

func latRowJSON(l LatRow) any {
	if l.Duration {
		return jsonLatDuration{Bytes: l.Bytes, Iterations: l.Iterations, TAvgMicros: num(l.TAvgMicros), TPS: num(l.TPS)}
	}
	return jsonLat{Bytes: l.Bytes, Iterations: l.Iterations,
		TMinMicros: num(l.TMinMicros), TMaxMicros: num(l.TMaxMicros), TTypicalMicros: num(l.TTypicalMicros),
		TAvgMicros: num(l.TAvgMicros), TStdevMicros: num(l.TStdevMicros),
		P99Micros: num(l.P99Micros), P999Micros: num(l.P999Micros)}
}

// MarshalRow encodes one row as Result.MarshalJSON writes it in "bw" or
// "lat", so that a caller streaming rows (Stream) writes the same JSON.
func MarshalRow(row Row) ([]byte, error) {
	return AppendRow(nil, row)
}

// AppendRow appends to dst the JSON of one row that MarshalRow returns,
// without reflection: a stream of millions of rows spent three quarters
// of its time in encoding/json (issue 26). A caller reusing dst makes no
// allocation per row.
func AppendRow(dst []byte, row Row) ([]byte, error) {
	switch r := row.(type) {
	case BWRow:
		dst = append(dst, `{"bytes":`...)
		dst = strconv.AppendUint(dst, r.Bytes, 10)
		dst = append(dst, `,"iterations":`...)
		dst = strconv.AppendUint(dst, r.Iterations, 10)
		dst = append(dst, `,"bw_peak_gbps":`...)
		if r.PeakMeasured {
			dst = appendNum(dst, r.BWPeakGbps)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"bw_avg_gbps":`...)
		dst = appendNum(dst, r.BWAvgGbps)
		dst = append(dst, `,"msg_rate_mpps":`...)
		dst = appendNum(dst, r.MsgRateMpps)
		dst = append(dst, `,"peak_measured":`...)
		dst = strconv.AppendBool(dst, r.PeakMeasured)
		if r.HasCPUUtil && finite(r.CPUUtilPercent) {
			dst = append(dst, `,"cpu_util_percent":`...)
			dst = appendNum(dst, r.CPUUtilPercent)
		}
		return append(dst, '}'), nil
	case LatRow:
		dst = append(dst, `{"bytes":`...)
		dst = strconv.AppendUint(dst, r.Bytes, 10)
		dst = append(dst, `,"iterations":`...)
		dst = strconv.AppendUint(dst, r.Iterations, 10)
		if r.Duration {
			dst = append(dst, `,"t_avg_us":`...)
			dst = appendNum(dst, r.TAvgMicros)
			dst = append(dst, `,"tps":`...)
			dst = appendNum(dst, r.TPS)
			return append(dst, '}'), nil
		}
		for _, f := range [...]struct {
			key string
			v   float64
		}{{`,"t_min_us":`, r.TMinMicros}, {`,"t_max_us":`, r.TMaxMicros}, {`,"t_typical_us":`, r.TTypicalMicros},
			{`,"t_avg_us":`, r.TAvgMicros}, {`,"t_stdev_us":`, r.TStdevMicros}, {`,"p99_us":`, r.P99Micros},
			{`,"p999_us":`, r.P999Micros}} {
			dst = appendNum(append(dst, f.key...), f.v)
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("perftest: cannot encode a %T row", row)
}

// appendNum appends v as encoding/json writes a float64 (the shortest
// form, exponent from 1e21 and below 1e-6), or null when v is inf or nan.
func appendNum(dst []byte, v float64) []byte {
	if !finite(v) {
		return append(dst, "null"...)
	}
	return jsonfloat.Append(dst, v)
}

func bwRowsJSON(rows []BWRow) []jsonBW {
	out := make([]jsonBW, len(rows))
	for i, r := range rows {
		j := jsonBW{Bytes: r.Bytes, Iterations: r.Iterations, BWAvgGbps: num(r.BWAvgGbps),
			MsgRateMpps: num(r.MsgRateMpps), PeakMeasured: r.PeakMeasured}
		if r.PeakMeasured {
			j.BWPeakGbps = num(r.BWPeakGbps)
		}
		if r.HasCPUUtil {
			j.CPUUtilPercent = num(r.CPUUtilPercent)
		}
		out[i] = j
	}
	return out
}

// MarshalJSON encodes the result in the JSON contract of examples/parse
// (see the package documentation), with "tool": "perftest" and the
// failure, if any, as "error".
func (r *Result) MarshalJSON() ([]byte, error) {
	out := jsonResult{Tool: "perftest", Test: r.Test, Kind: r.Kind, Server: r.Server, FullRTT: r.FullRTT,
		LegacyJSON: r.LegacyJSON, Warnings: []string{}, Error: r.Failure}
	h := &r.Header
	if r.Kind != ResultUnknown && r.Kind != ResultBare || h.Device != "" {
		jh := &jsonHeader{Device: h.Device, QPs: h.QPs, Connection: h.Connection, MTU: h.MTU, LinkType: h.LinkType,
			GIDIndex: optInt(h.GIDIndex), Verb: h.Verb, AtomicOp: h.AtomicOp, Bidirectional: h.Bidirectional,
			Transport: h.Transport, TXDepth: h.TXDepth, RXDepth: h.RXDepth, CQModeration: h.CQModeration,
			MaxInlineBytes: optInt(h.MaxInlineBytes), OutstandingReads: optInt(h.OutstandingReads),
			RDMACM: h.RDMACM, DataExchange: h.DataExchange, BWUnitLabel: h.BWUnitLabel, Unknown: h.Unknown}
		if h.BWUnit != UnitUnknown {
			jh.BWUnit = h.BWUnit.String()
		}
		out.Header = jh
	}
	switch r.Kind {
	case ResultBW:
		out.BW = bwRowsJSON(r.BW)
		if out.BW == nil {
			out.BW = []jsonBW{}
		}
	case ResultLat, ResultLatDuration:
		out.Lat = make([]any, 0, len(r.Lat))
		for _, l := range r.Lat {
			out.Lat = append(out.Lat, latRowJSON(l))
		}
	case ResultBare:
		out.Value = json.RawMessage("null")
		if len(r.Values) > 0 {
			if v := num(r.Value); v != nil {
				b, err := json.Marshal(*v)
				if err != nil {
					return nil, err
				}
				out.Value = b
			}
			for _, v := range r.Values {
				out.Values = append(out.Values, num(v))
			}
		}
	}
	if r.ReportBoth != nil {
		out.ReportBoth = &jsonReportBoth{Local: bwRowsJSON(r.ReportBoth.Local), Remote: bwRowsJSON(r.ReportBoth.Remote)}
	}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return json.Marshal(out)
}

// MarshalJSON encodes the error as {"kind", "message", "raw"}, with the
// kind as the JSON contract of examples/parse names it: a GID index
// failure is "invalid_option" there, and "detail_kind": "gid_index" says
// which.
func (e *Error) MarshalJSON() ([]byte, error) {
	out := struct {
		Kind       string `json:"kind"`
		DetailKind string `json:"detail_kind,omitempty"`
		Message    string `json:"message"`
		Raw        string `json:"raw"`
	}{Kind: e.Kind.String(), Message: e.Message, Raw: e.Raw}
	if e.Kind == KindGIDIndex {
		out.Kind, out.DetailKind = KindInvalidOption.String(), e.Kind.String()
	}
	return json.Marshal(out)
}
