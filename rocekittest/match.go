package rocekittest

import (
	"path"
	"slices"
	"strings"
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

// perftestValueFlags are the perftest options that take a value.
var perftestValueFlags = []string{
	"-d", "-i", "-x", "-c", "-s", "-n", "-D", "-q", "-m", "-t", "-r", "-I", "-u", "-p",
	"-S", "-Q", "-T", "-l", "-E", "-g", "-M", "-L", "-w", "-W", "-A", "-o", "-O", "-K", "-f", "-y",
	"--ib-dev", "--ib-port", "--gid-index", "--connection", "--size", "--iters", "--duration",
	"--qp", "--mtu", "--tx-depth", "--rx-depth", "--inline_size", "--qp-timeout", "--port",
}

// PerftestRole tells a perftest client from its server by its arguments
// (after Program): the client's last argument is the server's address, a
// word that is neither an option nor an option's value.
//
// Similar to: the difference between "ib_send_bw -d rxe0" and
// "ib_send_bw -d rxe0 198.18.0.1".
func PerftestRole(args []string) string {
	n := len(args)
	if n == 0 || strings.HasPrefix(args[n-1], "-") {
		return "server"
	}
	if n >= 2 && slices.Contains(perftestValueFlags, args[n-2]) {
		return "server"
	}
	return "client"
}
