package perftest

import (
	"bytes"
	"fmt"
	"io"
)

// ParseVersion returns the internal version -V prints ("Version: 6.06" →
// "6.06"), which is what the two sides exchange: 6.06 is 4.5-0.17, 6.24
// is 25.01, 6.29 is 26.04.17 (configure.ac AC_INIT).
//
// Similar to: ib_send_bw -V
func ParseVersion(r io.Reader) (string, error) {
	if r == nil {
		return "", errNilReader
	}
	data, err := io.ReadAll(io.LimitReader(r, 1<<16))
	if err != nil {
		return "", fmt.Errorf("perftest: read: %w", err)
	}
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = nextLine(data)
		if v, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("Version:")); ok {
			v = bytes.TrimSpace(v)
			if len(v) == 0 {
				return "", newParseError(ErrParse, n, line, "empty version")
			}
			return string(v), nil
		}
	}
	return "", &ParseError{Err: ErrUnrecognized, Msg: "no Version: line"}
}
