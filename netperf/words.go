package netperf

import "strings"

// Allocation-free helpers over the space-separated words of a line.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// nextWord returns the word starting at or after s[i], and the index after it.
func nextWord(s string, i int) (string, int) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	start := i
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return s[start:i], i
}

// firstWord returns the first word of s, "" when s is blank.
func firstWord(s string) string {
	w, _ := nextWord(s, 0)
	return w
}

// wordCount counts the words of s.
func wordCount(s string) int {
	n := 0
	for i := 0; ; n++ {
		var w string
		if w, i = nextWord(s, i); w == "" {
			return n
		}
	}
}

// wordsPrefix reports whether the words of s start with the words of p,
// whatever the spacing ("Recv   Send    Send" starts with "Recv Send Send").
func wordsPrefix(s, p string) bool {
	i, j := 0, 0
	for {
		var want string
		if want, j = nextWord(p, j); want == "" {
			return true
		}
		var got string
		if got, i = nextWord(s, i); got != want {
			return false
		}
	}
}

// wordsEqual reports whether s and p have the same words.
func wordsEqual(s, p string) bool {
	if !wordsPrefix(s, p) {
		return false
	}
	return wordCount(s) == wordCount(p)
}

// expandTabs is expand(1) with 8-column tab stops: -O output is read by
// column, and a page or terminal may have turned its indentation or its
// padding into tabs, or the other way round. A line without tabs is
// returned as it is.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteByte(s[i])
		col++
	}
	return b.String()
}
