package perftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// maxJSON is the largest --out_json file ParseJSON reads (perftest writes
// about 1 KiB).
const maxJSON = 16 << 20

// jsonPair is one "key: value" of a --out_json file.
type jsonPair struct {
	section string // "test_info", "results", or "" at the top
	key     string
	value   string
	keyQ    bool // the key was quoted
	line    int
}

// ParseJSON parses a --out_json file (--out_json_file=F, by default
// perftest_out.json) in both forms: standard JSON (perftest 24.01 and
// later) and the earlier form with unquoted keys and trailing commas
// (Result.LegacyJSON), as well as the invalid JSON --output=bandwidth
// writes. test_info fills Header and Test; results fills one row (perftest
// rewrites the file on every report, so -a leaves only the last size and
// --report-both the remote numbers) or Value for --output files.
//
// The file has no BW unit, but MsgRate × MsgSize is the bandwidth in 10^6
// bytes/s, so BW_average tells its unit: about 0.954 of it in MiB/s, 0.008
// of it in Gb/s (--report_gbits). The rows get that unit and their Gbps
// fields. When MsgRate cannot tell (0.000000, too few digits), the Gbps
// fields are NaN and a WarnUnitUnknown warning says so until
// Result.AssumeBWUnit is called with the unit the run used.
//
// A file that ends before its closing brace is truncated (a *ParseError
// wrapping ErrTruncated): its header is kept, its results are not, since
// the last value may be cut inside its number ("MsgRate: 0." is not 0).
// A negative number is a *ParseError wrapping ErrParse.
func ParseJSON(r io.Reader) (*Result, error) {
	res := &Result{Header: newHeader()}
	if r == nil {
		return res, errNilReader
	}
	data, err := io.ReadAll(io.LimitReader(r, maxJSON+1))
	if err != nil {
		return res, fmt.Errorf("perftest: read: %w", err)
	}
	if len(data) > maxJSON {
		return res, &ParseError{Err: ErrParse, Msg: fmt.Sprintf("JSON input larger than %d bytes", maxJSON), NoResult: true}
	}
	p := &jsonParser{collector: collector{res: res}}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return res, &ParseError{Err: ErrUnrecognized, Msg: "JSON input does not start with {", NoResult: true}
	}
	if json.Valid(data) {
		p.standard(data)
	} else {
		p.lenient(data)
	}
	return res, p.finish()
}

type jsonParser struct {
	collector
	pairs []jsonPair
	cut   bool // the file ends inside its braces
}

// standard walks valid JSON with the token decoder, keeping the key order.
func (p *jsonParser) standard(data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	atLine, counted := 1, 0
	lineAt := func() int { // the line of the decoder's offset, counted incrementally
		off := int(dec.InputOffset())
		atLine += bytes.Count(data[counted:off], []byte("\n"))
		counted = off
		return atLine
	}
	var walk func(section string, depth int) error
	walk = func(section string, depth int) error {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			line := lineAt()
			tok, err = dec.Token()
			if err != nil {
				return err
			}
			pair := jsonPair{section: section, key: key, keyQ: true, line: line}
			switch v := tok.(type) {
			case json.Delim:
				if v != '{' || depth > 0 {
					if err := skipValue(dec, v); err != nil {
						return err
					}
					p.res.warn(WarnUnknownLine, line, fmt.Sprintf("JSON key %q holds a nested value, skipped", key))
					continue
				}
				if err := walk(key, depth+1); err != nil {
					return err
				}
				if _, err := dec.Token(); err != nil { // the closing '}'
					return err
				}
				continue
			case string:
				pair.value = v
			case json.Number:
				pair.value = string(v)
			case bool:
				pair.value = fmt.Sprint(v)
			case nil:
				pair.value = "null"
			}
			p.pairs = append(p.pairs, pair)
		}
		return nil
	}
	if _, err := dec.Token(); err != nil { // the opening '{'
		p.setErr(newParseError(ErrParse, 1, nil, err.Error()))
		return
	}
	if err := walk("", 0); err != nil {
		p.setErr(newParseError(ErrParse, lineAt(), nil, err.Error()))
	}
}

// skipValue skips the rest of an array or object whose opening delimiter
// was just read.
func skipValue(dec *json.Decoder, open json.Delim) error {
	if open != '{' && open != '[' {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// lenient parses the pre-24.01 form line by line: "test_info: {",
// "test: Send_BW_Test,", "Device: \"rxe0\",", "TX_depth : 128,", "},".
// Quoted keys, as in the invalid JSON of --output=bandwidth, work too.
func (p *jsonParser) lenient(data []byte) {
	section := ""
	depth := 0
	last := 0
	var bad error // the error of the last line, set once another follows
	defer func() {
		if bad != nil && depth <= 0 {
			p.setErr(bad)
		}
		if depth > 0 {
			// Cut before its closing brace: the last value may be cut
			// inside its number ("MsgRate: 0." read as 0), so the
			// results are not kept.
			p.cut = true
			p.setErr(newParseError(ErrTruncated, last, nil, "the JSON file ends before its closing brace"))
		}
	}()
	for n := 1; len(data) > 0; n++ {
		var raw []byte
		raw, data = nextLine(data)
		t := strings.TrimSpace(string(raw))
		t = strings.TrimSpace(strings.TrimSuffix(t, ","))
		if t != "" {
			last = n
			if bad != nil {
				p.setErr(bad)
				bad = nil
			}
		}
		switch {
		case t == "":
			continue
		case t == "{":
			depth++
			continue
		case t == "}":
			depth--
			if depth <= 1 {
				section = ""
			}
			continue
		}
		key, value, ok := strings.Cut(t, ":")
		if !ok {
			// At the end of a file cut before its closing brace, this is
			// where it was cut, not a garbled line.
			bad = newParseError(ErrParse, n, raw, "not a key: value line")
			continue
		}
		key, keyQ := unquote(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		if value == "{" {
			section = key
			depth++
			continue
		}
		value, _ = unquote(value)
		p.pairs = append(p.pairs, jsonPair{section: section, key: key, value: value, keyQ: keyQ, line: n})
	}
}

// unquote removes one pair of double quotes.
func unquote(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1], true
	}
	return s, false
}

// finish turns the pairs into the Result.
func (p *jsonParser) finish() error {
	res := p.res
	results := map[string]jsonPair{}
	resultsLine := 0
	legacy := false
	for _, kv := range p.pairs {
		if !kv.keyQ {
			legacy = true
		}
		switch kv.section {
		case "test_info":
			p.testInfo(kv)
		case "results":
			if p.cut {
				continue
			}
			if resultsLine == 0 {
				resultsLine = kv.line
			}
			results[canonKey(kv.key)] = kv
		case "":
			if k := canonKey(kv.key); k == "bwavg" || k == "msgrateavg" || k == "avglat" {
				results[k] = kv // in case --output=bandwidth writes no section
				if resultsLine == 0 {
					resultsLine = kv.line
				}
				break
			}
			fallthrough
		default:
			res.warn(WarnUnknownLine, kv.line, clip(fmt.Sprintf("unknown JSON key %s: %s", kv.key, kv.value)))
		}
	}
	res.LegacyJSON = legacy
	err := p.results(results, resultsLine)
	if p.firstErr != nil {
		err = p.firstErr
	}
	if err == nil && len(p.pairs) == 0 {
		err = &ParseError{Err: ErrUnrecognized, Msg: "no JSON keys"}
	}
	h := &res.Header
	res.FullRTT = (res.Kind == ResultLat || res.Kind == ResultLatDuration) && (h.Verb == "RDMA_Read" || h.Verb == "Atomic")
	if u := inferBWUnit(res.BW); u != UnitUnknown {
		res.AssumeBWUnit(u)
	}
	return p.result(markNoResult(err, res, 0))
}

func (p *jsonParser) testInfo(kv jsonPair) {
	res := p.res
	switch canonKey(kv.key) {
	case "test":
		res.Test = jsonTitle(kv.value)
		if kind, ok := res.Header.setTitle(res.Test); ok && res.Kind == ResultUnknown {
			res.Kind = kind
		}
	case "testwithevents":
		res.Header.Events = strings.TrimPrefix(kv.value, "Using_")
	case "multicastruns":
		res.Header.Multicast = true
	case "warning1", "warning2":
		res.warn(WarnToolMessage, kv.line, clip(kv.value))
	default:
		if !res.Header.set(kv.key, kv.value) {
			res.Header.Unknown = append(res.Header.Unknown, Field{Key: kv.key, Value: kv.value})
		}
	}
}

// results makes the row (or the bare value) of the results section.
func (p *jsonParser) results(m map[string]jsonPair, line int) error {
	res := p.res
	if len(m) == 0 {
		return &ParseError{Err: ErrTruncated, Msg: "no results in the JSON file"}
	}
	var bad []string
	num := func(key string) float64 {
		kv, ok := m[key]
		if !ok {
			bad = append(bad, key+" missing")
			return math.NaN()
		}
		v, ok := parseFloat([]byte(kv.value))
		if !ok {
			bad = append(bad, key+" "+kv.value)
			return math.NaN()
		}
		if v < 0 && finite(v) {
			// perftest prints no negative number (see negativeField).
			bad = append(bad, "negative "+key+" "+kv.value)
			return math.NaN()
		}
		if !finite(v) {
			res.warn(WarnNonFinite, kv.line, fmt.Sprintf("%s %s (kept as printed)", kv.key, kv.value))
		}
		return v
	}
	count := func(key string) uint64 {
		kv, ok := m[key]
		if !ok {
			bad = append(bad, key+" missing")
			return 0
		}
		v, ok := parseUint([]byte(kv.value))
		if !ok {
			bad = append(bad, key+" "+kv.value)
		}
		return v
	}
	has := func(key string) bool { _, ok := m[key]; return ok }
	switch {
	case has("tmin"):
		r := LatRow{Bytes: count("msgsize"), Iterations: count("niterations"),
			TMinMicros: num("tmin"), TMaxMicros: num("tmax"), TTypicalMicros: num("ttypical"),
			TAvgMicros: num("tavg"), TStdevMicros: num("tstdev"), P99Micros: num("percentile99"), P999Micros: num("percentile999")}
		res.Kind, res.Lat = ResultLat, []LatRow{r}
	case has("tpsaverage"):
		r := LatRow{Bytes: count("msgsize"), Iterations: count("niterations"), Duration: true,
			TAvgMicros: num("tavg"), TPS: num("tpsaverage")}
		res.Kind, res.Lat = ResultLatDuration, []LatRow{r}
	case has("bwaverage"):
		peak, avg := num("bwpeak"), num("bwaverage")
		r := BWRow{Bytes: count("msgsize"), Iterations: count("niterations"), MsgRateMpps: num("msgrate"),
			Printed: PrintedBW{Peak: peak, Avg: avg}, PeakMeasured: peak != 0,
			BWAvgGbps: math.NaN()}
		if r.PeakMeasured {
			r.BWPeakGbps = math.NaN()
		}
		if has("cpuutil") {
			r.CPUUtilPercent, r.HasCPUUtil = num("cpuutil"), true
		}
		res.Kind, res.BW = ResultBW, []BWRow{r}
		res.warn(WarnUnitUnknown, line, "--out_json has no BW unit (MiB/s, or Gb/s with --report_gbits): the Gbps fields are NaN; call AssumeBWUnit")
		if !r.PeakMeasured {
			res.warn(WarnPeakNotMeasured, line, "BW_peak is 0: perftest did not measure it; it is not zero")
		}
	default:
		key := ""
		for _, k := range []string{"bwavg", "msgrateavg", "avglat", "tavg"} {
			if has(k) {
				key = k
				break
			}
		}
		if key == "" {
			return newParseError(ErrParse, line, nil, "results hold no known row")
		}
		v := num(key)
		res.Kind, res.Value, res.Values = ResultBare, v, []float64{v}
	}
	if len(bad) > 0 {
		return newParseError(ErrParse, line, nil, "results: "+strings.Join(bad, ", "))
	}
	return nil
}

// inferBWUnit tells the unit of BW rows read from --out_json, which has
// none, from the rows themselves: perftest's MsgRate × MsgSize is the
// bandwidth in 10^6 bytes/s, so BW_average is that × 0.953674 in MiB/s
// (2^20 bytes/s) and × 0.008 in Gb/s (--report_gbits). The two are 119
// times apart; a ratio within 5 % of one of them decides, and a MsgRate
// printed as 0.000000 (or too few digits to tell) decides nothing.
func inferBWUnit(rows []BWRow) BWUnit {
	unit := UnitUnknown
	for _, r := range rows {
		mbps := r.MsgRateMpps * float64(r.Bytes) // 10^6 bytes/s
		if !(mbps > 0) || !finite(r.Printed.Avg) || r.Printed.Unit != UnitUnknown {
			return UnitUnknown
		}
		ratio := r.Printed.Avg / mbps
		var u BWUnit
		switch {
		case math.Abs(ratio/(1e6/(1<<20))-1) < 0.05:
			u = UnitMiBps
		case math.Abs(ratio/0.008-1) < 0.05:
			u = UnitGbps
		default:
			return UnitUnknown
		}
		if unit != UnitUnknown && u != unit {
			return UnitUnknown
		}
		unit = u
	}
	return unit
}

// jsonTitle turns the JSON test name into the text title:
// "RDMA_Write_BW_Test" → "RDMA_Write BW Test",
// "Atomic_FETCH_AND_ADD_Latency_Test" → "Atomic FETCH_AND_ADD Latency Test".
func jsonTitle(s string) string {
	var words []string
	for _, verb := range []string{"RDMA_Write_imm", "RDMA_Write", "RDMA_Read", "Send_imm", "Send", "Atomic"} {
		if rest, ok := strings.CutPrefix(s, verb+"_"); ok {
			words = append(words, verb)
			s = rest
			if verb == "Atomic" {
				for _, op := range []string{"CMP_AND_SWAP", "FETCH_AND_ADD"} {
					if rest, ok := strings.CutPrefix(s, op+"_"); ok {
						words = append(words, op)
						s = rest
					}
				}
			}
			break
		}
	}
	words = append(words, strings.Split(s, "_")...)
	return strings.Join(words, " ")
}

// AssumeBWUnit sets the unit of BW rows whose unit is unknown (from
// ParseJSON) and computes their Gbps fields: UnitGbps when the run used
// --report_gbits, UnitMiBps otherwise. It drops the WarnUnitUnknown
// warning.
func (r *Result) AssumeBWUnit(u BWUnit) {
	if u == UnitUnknown {
		return
	}
	fix := func(rows []BWRow) {
		for i := range rows {
			row := &rows[i]
			if row.Printed.Unit != UnitUnknown {
				continue
			}
			row.Printed.Unit = u
			row.BWAvgGbps = u.ToGbps(row.Printed.Avg)
			if row.PeakMeasured {
				row.BWPeakGbps = u.ToGbps(row.Printed.Peak)
			}
			for j := range row.Ports {
				row.Ports[j].BWGbps = u.ToGbps(row.Ports[j].BWPrinted)
			}
		}
	}
	fix(r.BW)
	if r.ReportBoth != nil {
		fix(r.ReportBoth.Local)
		fix(r.ReportBoth.Remote)
	}
	if r.Header.BWUnit == UnitUnknown {
		r.Header.BWUnit = u
	}
	kept := r.Warnings[:0]
	for _, w := range r.Warnings {
		if warningKind(w) != WarnUnitUnknown {
			kept = append(kept, w)
		}
	}
	r.Warnings = kept
}
