package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Suites is the document: one testsuites element.
type Suites struct {
	Name   string
	Suites []Suite
}

// Suite is one workflow, matrix or gate.
type Suite struct {
	Name       string
	Hostname   string
	Timestamp  time.Time // zero: not written
	Properties []Property
	Cases      []Case
}

// Property is a name and value of a suite (the round's parameters).
type Property struct{ Name, Value string }

// Case is one pair or check. It passes unless Failure, Error or Skipped
// is set.
type Case struct {
	Name    string
	Class   string // "classname": the workflow or package ("rocekit.fleet")
	Seconds float64
	// Failure is a check that ran and did not hold (a gate, a verdict
	// below its line).
	Failure *Failure
	// Error is a check that could not run (a pair that did not start).
	Error *Failure
	// Skipped says why a check did not run; "" runs it.
	Skipped string
	// Output is kept as system-out (the tool's output, a finding's text).
	Output string
}

// Failure is why a case failed: a short type, a one-line message, and the
// evidence in Text.
type Failure struct {
	Type, Message, Text string
}

// Counts returns the suite's tests, failures, errors and skipped.
func (s Suite) Counts() (tests, failures, errors, skipped int) {
	for _, c := range s.Cases {
		tests++
		switch {
		case c.Error != nil:
			errors++
		case c.Failure != nil:
			failures++
		case c.Skipped != "":
			skipped++
		}
	}
	return
}

// Failed reports whether any case of any suite failed or erred.
func (d Suites) Failed() bool {
	for _, s := range d.Suites {
		if _, f, e, _ := s.Counts(); f+e > 0 {
			return true
		}
	}
	return false
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr,omitempty"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name       string    `xml:"name,attr"`
	Tests      int       `xml:"tests,attr"`
	Failures   int       `xml:"failures,attr"`
	Errors     int       `xml:"errors,attr"`
	Skipped    int       `xml:"skipped,attr"`
	Time       string    `xml:"time,attr"`
	Timestamp  string    `xml:"timestamp,attr,omitempty"`
	Hostname   string    `xml:"hostname,attr,omitempty"`
	Properties *xmlProps `xml:"properties"`
	Cases      []xmlCase `xml:"testcase"`
}

type xmlProps struct {
	Property []xmlProp `xml:"property"`
}

type xmlProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr,omitempty"`
	Time      string      `xml:"time,attr"`
	Skipped   *xmlFailure `xml:"skipped"`
	Error     *xmlFailure `xml:"error"`
	Failure   *xmlFailure `xml:"failure"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlFailure struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Write writes d as JUnit XML. Text that XML 1.0 cannot hold (control
// characters, invalid UTF-8) is replaced, so that a tool's raw output in a
// failure never makes the file unreadable.
func Write(w io.Writer, d Suites) error {
	doc := xmlSuites{Name: clean(d.Name)}
	var total float64
	for _, s := range d.Suites {
		xs := xmlSuite{Name: clean(s.Name), Hostname: clean(s.Hostname)}
		xs.Tests, xs.Failures, xs.Errors, xs.Skipped = s.Counts()
		if !s.Timestamp.IsZero() {
			xs.Timestamp = s.Timestamp.UTC().Format("2006-01-02T15:04:05")
		}
		if len(s.Properties) > 0 {
			xs.Properties = &xmlProps{}
			for _, p := range s.Properties {
				xs.Properties.Property = append(xs.Properties.Property, xmlProp{clean(p.Name), clean(p.Value)})
			}
		}
		var st float64
		for _, c := range s.Cases {
			if c.Name == "" {
				return fmt.Errorf("junit: suite %q: a test case without a name", s.Name)
			}
			st += max(c.Seconds, 0)
			xc := xmlCase{Name: clean(c.Name), Classname: clean(c.Class), Time: seconds(c.Seconds), SystemOut: clean(c.Output)}
			xc.Failure, xc.Error = failure(c.Failure), failure(c.Error)
			if c.Skipped != "" {
				xc.Skipped = &xmlFailure{Message: clean(c.Skipped)}
			}
			xs.Cases = append(xs.Cases, xc)
		}
		xs.Time = seconds(st)
		total += st
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Errors += xs.Errors
		doc.Suites = append(doc.Suites, xs)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func failure(f *Failure) *xmlFailure {
	if f == nil {
		return nil
	}
	return &xmlFailure{Type: clean(f.Type), Message: clean(f.Message), Text: clean(f.Text)}
}

// seconds formats a duration as the schema's SUREFIRE_TIME: digits, a
// point, digits; negative and non-finite times are 0.
func seconds(s float64) string {
	if !(s > 0) || s > 1e12 {
		return "0.000"
	}
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// clean keeps what XML 1.0 allows: tab, newline, carriage return and
// the characters from U+0020 on, less the surrogates and U+FFFE/U+FFFF.
func clean(s string) string {
	ok := true
	for _, r := range s {
		if !xmlChar(r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if xmlChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}

func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
