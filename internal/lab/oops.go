package lab

import "strings"

// oopsStarts are the first lines of the kernel's crash reports, in the
// order they are looked for on a console.
var oopsStarts = []string{
	"BUG:", "Oops:", "general protection fault", "WARNING:", "Kernel panic - not syncing",
}

// maxOopsLines bounds a quoted oops when its end marker never came (the
// console was cut by the crash).
const maxOopsLines = 120

// Oops returns the first kernel crash report on a guest's serial console:
// from its first line (BUG:, Oops:, general protection fault, WARNING:,
// Kernel panic) through the call trace, up to the "---[ end ..." marker
// that closes it; "" when the console holds none. Carriage returns of the
// serial console are removed.
func Oops(console []byte) string {
	text := strings.ReplaceAll(string(console), "\r", "")
	lines := strings.Split(text, "\n")
	first := -1
	for i, l := range lines {
		if oopsStart(l) {
			first = i
			break
		}
	}
	if first < 0 {
		return ""
	}
	end := min(len(lines), first+maxOopsLines)
	for i := first; i < end; i++ {
		if strings.Contains(lines[i], "---[ end ") {
			end = i + 1
			break
		}
	}
	return strings.TrimRight(strings.Join(lines[first:end], "\n"), "\n")
}

func oopsStart(line string) bool {
	for _, s := range oopsStarts {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}
