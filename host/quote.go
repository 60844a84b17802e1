package host

import "strings"

// Quote returns s quoted for a POSIX shell (sh, dash, bash, ksh, zsh), so
// that the shell reads it back as exactly one word equal to s, whatever it
// holds: quotes, $(...), backquotes, globs, newlines, any bytes but NUL
// (which no argument can carry). Words made only of safe characters are
// returned as they are; others are wrapped in single quotes, and each
// single quote inside becomes quote, backslash, quote, quote:
//
//	Quote("it's") == `'it'\''s'`
func Quote(s string) string {
	if s != "" && isSafeWord(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteCommand quotes each word of argv and joins them with spaces: a
// command line that a POSIX shell runs as argv, and that a person can paste.
func QuoteCommand(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// isSafeWord reports whether s needs no quoting. '=' and '~' are left out
// on purpose: zsh expands a leading =cmd, and shells expand ~ in
// assignments.
func isSafeWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_-./:,+@%", c) >= 0:
		default:
			return false
		}
	}
	return true
}
