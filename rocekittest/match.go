package rocekittest

import (
	"path"
	"slices"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// Program returns the program a command line runs and its arguments,
// seen through the wrappers a framework puts in front of it: taskset (with
// -c/--cpu-list LIST, -a, or a MASK), stdbuf (-oL -eL, -o L), env
// (KEY=VALUE) and nice (-n N). The program is its base name.
//
// Similar to: what ps shows as the command once the wrappers exec'd it.
func Program(argv []string) (prog string, args []string) {
	for len(argv) > 0 {
		switch path.Base(argv[0]) {
		case "taskset":
			list := slices.ContainsFunc(argv, func(a string) bool { return a == "-c" || a == "--cpu-list" })
			argv = skipOptions(argv[1:], []string{"-c", "--cpu-list"})
			if !list && len(argv) > 0 {
				argv = argv[1:] // the mask: taskset 0x3 PROG
			}
		case "stdbuf":
			argv = skipOptions(argv[1:], []string{"-i", "-o", "-e"})
		case "env":
			argv = argv[1:]
			for len(argv) > 0 && (strings.Contains(argv[0], "=") || strings.HasPrefix(argv[0], "-")) {
				argv = argv[1:]
			}
		case "nice":
			argv = skipOptions(argv[1:], []string{"-n"})
		default:
			return path.Base(argv[0]), argv[1:]
		}
	}
	return "", nil
}

// skipOptions drops leading options; those in withValue take the next
// argument as their value.
func skipOptions(argv []string, withValue []string) []string {
	for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
		a := argv[0]
		argv = argv[1:]
		if a == "--" {
			break
		}
		if slices.Contains(withValue, a) {
			if len(argv) > 0 {
				argv = argv[1:]
			}
		}
	}
	return argv
}

// PerftestRole tells a perftest client from its server by its arguments
// (after Program, or a whole argv that starts with the program), read with perftest's one flag table
// (perftest.ParseArgs): the client's command line holds the server's
// address, a word that is neither an option nor an option's value.
//
// Similar to: the difference between "ib_send_bw -d rxe0" and
// "ib_send_bw -d rxe0 198.18.0.1".
func PerftestRole(args []string) string {
	if len(args) > 0 {
		if _, ok := perftest.TestOf(args[0]); ok {
			args = args[1:] // a whole argv, program first
		}
	}
	c, _ := perftest.ParseArgs(args) // the role is read even when a value is not
	return string(c.Role)
}
