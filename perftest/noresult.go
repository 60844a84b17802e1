package perftest

import (
	"errors"
	"reflect"
)

// NoResult is the one place that decides whether a Result says nothing:
// it returns nil when r holds a measurement (a BW or latency row, a
// --output number) or is the complete output of a side that prints none
// (the server of ib_read_lat and ib_atomic_lat: WarnNoTable), and else a
// *ParseError with NoResult set, wrapping ErrNoResult and ErrTruncated
// when the output began (a title, header, address or table header) or
// ErrUnrecognized when nothing in it is perftest's. A nil r says
// nothing.
//
// Every parser's error and RunPair's check of both sides come from it,
// so an output that exits 0 and prints nothing usable is never a result:
//
//	if err := res.NoResult(); err != nil { ... } // errors.Is(err, perftest.ErrNoResult)
//
// A failure the tool reported does not count as a result: the parsers
// return the *Error first.
func (r *Result) NoResult() error { return r.noResult(0) }

// noResult is NoResult for a Result whose rows were delivered elsewhere
// (Stream keeps none): delivered counts them.
func (r *Result) noResult(delivered int) error {
	if r == nil {
		return &ParseError{Err: ErrUnrecognized, Msg: "no output", NoResult: true}
	}
	if delivered > 0 || len(r.BW) > 0 || len(r.Lat) > 0 || len(r.Values) > 0 {
		return nil
	}
	if r.Server && r.HasWarning(WarnNoTable) {
		return nil
	}
	if r.began() {
		return &ParseError{Err: ErrTruncated, Msg: "no result row or number", NoResult: true}
	}
	return &ParseError{Err: ErrUnrecognized, Msg: "nothing perftest prints", NoResult: true}
}

// began reports whether anything of a perftest output was read: a title,
// a table, a header line, an address or the server's banner.
func (r *Result) began() bool {
	return r.Test != "" || (r.Kind != ResultUnknown && r.Kind != ResultBare) || r.Server ||
		!reflect.DeepEqual(r.Header, newHeader())
}

// markNoResult sets NoResult on err when it is a *ParseError and res says
// nothing, so that the specific error a parser found (with its line) also
// says that there is no result.
func markNoResult(err error, res *Result, delivered int) error {
	nr := res.noResult(delivered)
	if nr == nil {
		return err
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.NoResult = true
		return err
	}
	if err == nil {
		return nr
	}
	return err
}
