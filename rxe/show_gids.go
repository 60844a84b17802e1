package rxe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strconv"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// ShowGIDs is the text output of the show_gids script (MLNX_OFED,
// mlnx-tools), parsed: one GIDTable per device and port, in the order the
// rows came. It serves GID selection from text captured on a host rocekit
// cannot reach: SelectGID(out.Tables[i], SelectOptions{Policy:
// PolicyRoCEv2IPv4}).
type ShowGIDs struct {
	Tables []GIDTable `json:"tables"`
	// Found is the count of the trailing n_gids_found=N line; HasFound is
	// false when the line is missing (truncated output).
	Found    int  `json:"n_gids_found"`
	HasFound bool `json:"has_n_gids_found"`
	// Warnings lists rows that did not parse, IPv4 columns that disagree
	// with the GID, and a count that disagrees with the rows: each a
	// LineWarning (errors.As). JSON has their messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// LineWarning is a problem of one line of a command's text output (Line
// 0: of the whole output), as ParseShowGIDs and ParseRDMAStatistic report
// them.
type LineWarning struct {
	Line int
	Text string // the line or token as read
	Err  error
}

// Error says which line and why.
func (w LineWarning) Error() string {
	if w.Line == 0 {
		return fmt.Sprintf("rxe: %v", w.Err)
	}
	return fmt.Sprintf("rxe: line %d: %v: %q", w.Line, w.Err, w.Text)
}

// Unwrap returns the cause.
func (w LineWarning) Unwrap() error { return w.Err }

// Entries returns the number of rows parsed.
func (o ShowGIDs) Entries() int {
	n := 0
	for _, t := range o.Tables {
		n += len(t.Entries)
	}
	return n
}

// Table returns the table of one device and port.
func (o ShowGIDs) Table(device string, port int) (GIDTable, bool) {
	for _, t := range o.Tables {
		if t.Device == device && t.Port == port {
			return t, true
		}
	}
	return GIDTable{}, false
}

// ParseShowGIDs reads show_gids output: the "DEV PORT INDEX GID IPv4 VER
// DEV" table whether its columns are tabs (as printed) or runs of spaces
// (a terminal copy), rows of InfiniBand ports without IPv4 and netdev
// columns, and the n_gids_found=N line. Other lines (prompts, commands) are
// skipped; a line with a GID that does not parse as a row is a warning
// with its line number. It fails, wrapping ErrParse, when the text has
// neither a header nor a row, or when reading fails; the rows read so far
// are kept.
//
// Similar to: show_gids; show_gids mlx5_0
func ParseShowGIDs(r io.Reader) (ShowGIDs, error) {
	var out ShowGIDs
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	header := false
	index := map[string]int{} // "dev/port" → position in Tables
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		f := fieldsOf(line)
		if len(f) == 0 {
			continue
		}
		switch k := classifyShowGIDsLine(f); k {
		case lineHeader, lineRule:
			header = header || k == lineHeader
		case lineFound:
			v, err := strconv.Atoi(string(bytes.TrimPrefix(f[0], []byte("n_gids_found="))))
			if err != nil {
				out.warn(n, line, fmt.Errorf("%w: bad n_gids_found: %w", ErrParse, err))
				continue
			}
			out.Found, out.HasFound = v, true
		case lineRow:
			e, err := parseShowGIDsRow(f)
			if err != nil {
				out.warn(n, line, err)
				continue
			}
			if e.ipv4Col.IsValid() {
				if g, mapped := e.IPv4(); !mapped || g != e.ipv4Col {
					out.warn(n, line, fmt.Errorf("IPv4 column %s does not match GID %s", e.ipv4Col, e.GID.Addr()))
				}
			}
			key := e.Device + "/" + strconv.Itoa(e.Port)
			i, ok := index[key]
			if !ok {
				i = len(out.Tables)
				index[key] = i
				out.Tables = append(out.Tables, GIDTable{Device: e.Device, Port: e.Port})
			}
			out.Tables[i].Entries = append(out.Tables[i].Entries, e.GIDEntry)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: show_gids line %d: %w", ErrParse, n+1, err)
	}
	if !header && len(out.Tables) == 0 {
		return out, fmt.Errorf("%w: show_gids: no table header and no GID row in %d lines", ErrParse, n)
	}
	switch {
	case !out.HasFound:
		out.Warnings = append(out.Warnings, LineWarning{Err: fmt.Errorf("no n_gids_found line: the output may be truncated")})
	case out.Found != out.Entries():
		out.Warnings = append(out.Warnings, LineWarning{Err: fmt.Errorf("n_gids_found=%d but %d rows parsed", out.Found, out.Entries())})
	}
	return out, nil
}

func (o *ShowGIDs) warn(n int, line []byte, err error) {
	o.Warnings = append(o.Warnings, LineWarning{Line: n, Text: string(line), Err: err})
}

// fieldsOf splits a line at runs of blanks (tabs, spaces, \r). A leading
// comment or quote marker ("#", "*", ">", "//", "$") of text pasted from
// code or mail is dropped.
func fieldsOf(line []byte) [][]byte {
	f := bytes.Fields(line)
	if len(f) > 1 {
		switch string(f[0]) {
		case "#", "*", ">", "//", "$":
			f = f[1:]
		}
	}
	return f
}

type showGIDsLine int

const (
	lineOther showGIDsLine = iota
	lineHeader
	lineRule
	lineFound
	lineRow
)

func classifyShowGIDsLine(f [][]byte) showGIDsLine {
	switch {
	case len(f) >= 4 && string(f[0]) == "DEV" && string(f[1]) == "PORT" && string(f[2]) == "INDEX":
		return lineHeader
	case len(f) >= 4 && bytes.Equal(bytes.Trim(f[0], "-"), nil) && bytes.Equal(bytes.Trim(f[1], "-"), nil):
		return lineRule
	case len(f) == 1 && bytes.HasPrefix(f[0], []byte("n_gids_found=")):
		return lineFound
	}
	for _, w := range f {
		if looksLikeGID(w) {
			return lineRow
		}
	}
	// "mlx5_2 1 5 fe": a row cut short.
	if len(f) >= 3 && isDigits(f[1]) && isDigits(f[2]) {
		return lineRow
	}
	return lineOther
}

func isDigits(w []byte) bool {
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(w) > 0
}

// looksLikeGID reports whether w has the shape of a sysfs GID: 39
// characters with ':' every fifth.
func looksLikeGID(w []byte) bool {
	if len(w) != 39 {
		return false
	}
	for i := 4; i < 39; i += 5 {
		if w[i] != ':' {
			return false
		}
	}
	return true
}

// showGIDsRow is a row and its IPv4 column, if any.
type showGIDsRow struct {
	GIDEntry
	ipv4Col netip.Addr
}

// parseShowGIDsRow parses DEV PORT INDEX GID [IPv4] [VER] [NDEV].
func parseShowGIDsRow(f [][]byte) (showGIDsRow, error) {
	var e showGIDsRow
	if len(f) < 4 {
		return e, fmt.Errorf("%w: a GID row needs DEV PORT INDEX GID, got %d fields", ErrParse, len(f))
	}
	e.Device = string(f[0])
	var err error
	if e.Port, err = strconv.Atoi(string(f[1])); err != nil || e.Port < 0 {
		return e, fmt.Errorf("%w: PORT %q", ErrParse, f[1])
	}
	if e.Index, err = strconv.Atoi(string(f[2])); err != nil || e.Index < 0 {
		return e, fmt.Errorf("%w: INDEX %q", ErrParse, f[2])
	}
	if e.GID, err = ParseGID(string(f[3])); err != nil {
		return e, err
	}
	rest := f[4:]
	if len(rest) > 0 {
		if a, err := netip.ParseAddr(string(rest[0])); err == nil && a.Is4() {
			e.ipv4Col = a
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		switch string(rest[0]) {
		case "v1", "V1":
			e.Type, rest = GIDTypeRoCEv1, rest[1:]
		case "v2", "V2":
			e.Type, rest = GIDTypeRoCEv2, rest[1:]
		}
	}
	switch {
	case len(rest) == 1:
		// With a VER column, or without one (kernels before 4.5 had no
		// gid_attrs/types).
		e.Netdev = string(rest[0])
	case len(rest) > 0:
		return e, fmt.Errorf("%w: unexpected %q after the GID", ErrParse, bytes.Join(rest, []byte(" ")))
	}
	return e, nil
}
