package perftest

import (
	"encoding/json"
	"fmt"
	"math"
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
	switch r := row.(type) {
	case BWRow:
		return json.Marshal(bwRowsJSON([]BWRow{r})[0])
	case LatRow:
		return json.Marshal(latRowJSON(r))
	}
	return nil, fmt.Errorf("perftest: cannot encode a %T row", row)
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
