package host

import (
	"bytes"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// trickyArgs are arguments that break naive quoting.
var trickyArgs = []string{
	"",
	"plain",
	`'$(touch /tmp/pwned)'; rm -rf "x" \` + "`id`" + "\nnewline",
	"it's",
	"''",
	`'\''`,
	`"double" and \backslash\ and $HOME and ${PATH} and $(id) and $((1+1))`,
	"glob * ? [a-z] {a,b} ~ ~root",
	"=ls",
	"a=b",
	"-n",
	"--",
	"tab\tand\rcarriage\x01control\x7f",
	"ünïcödé 日本語 🚀",
	"\xff\xfe invalid utf-8 \xc3",
	"trailing newline\n",
	"\n\n",
	"; & | < > ( ) # ! %",
}

// shellWords runs argv's words through a real shell and returns the words
// it received.
func shellWords(t testing.TB, shell string, words []string) []string {
	t.Helper()
	script := `printf '%s\000' ` + QuoteCommand(words)
	out, err := exec.Command(shell, "-c", script).Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v", shell, script, err)
	}
	got := strings.Split(string(out), "\x00")
	return got[:len(got)-1]
}

func randomArg(r *rand.Rand) string {
	const alphabet = "ab \t\n'\"\\$`(){}[]*?~=!#&|;<>%^-_./:,+@\x01\x7f"
	var b strings.Builder
	for range r.IntN(24) {
		switch r.IntN(8) {
		case 0:
			b.WriteRune([]rune("äß日本🚀")[r.IntN(5)])
		case 1:
			b.WriteByte(byte(1 + r.IntN(255))) // any byte but NUL
		default:
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
	}
	return b.String()
}

// Property: every argument (tricky ones and 2000 random ones) comes back
// from a real shell exactly, as one word.
func TestQuoteRoundTripsThroughShell(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := slices.Clone(trickyArgs)
	for range 2000 {
		words = append(words, randomArg(r))
	}
	for _, shell := range []string{"/bin/sh", "bash", "dash"} {
		if _, err := exec.LookPath(shell); err != nil {
			continue
		}
		got := shellWords(t, shell, words)
		if len(got) != len(words) {
			t.Fatalf("%s: got %d words, want %d", shell, len(got), len(words))
		}
		for i := range words {
			if got[i] != words[i] {
				t.Errorf("%s: word %d: got %q, want %q (quoted %s)", shell, i, got[i], words[i], Quote(words[i]))
			}
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":            "''",
		"abc-1.2/x:y": "abc-1.2/x:y",
		"it's":        `'it'\''s'`,
		"a b":         "'a b'",
		"=ls":         "'=ls'",
		"~":           "'~'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, a := range trickyArgs {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("an argument cannot hold NUL")
		}
		got := shellWords(t, "/bin/sh", []string{s, "end"})
		if len(got) != 2 || !bytes.Equal([]byte(got[0]), []byte(s)) || got[1] != "end" {
			t.Fatalf("%q came back as %q (quoted %s)", s, got, Quote(s))
		}
	})
}
