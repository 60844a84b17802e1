#!/bin/sh
# Captures the thread stat files irq's thread parser is tested on (see
# ../README.md). Run as root from this folder, with go on PATH.
set -e
uname -r > kernel.txt
# A Go program's own threads: /proc/self/task/*/stat read by the process itself.
d=$(mktemp -d)
cat > "$d/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	names, _ := filepath.Glob("/proc/self/task/*/stat")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err == nil {
			fmt.Print(string(b))
		}
	}
}
GO
(cd "$d" && go mod init capture >/dev/null 2>&1 && go run .) > self-task.stat
rm -rf "$d"
# Kernel threads: kworkers (with their work queue in the name), ksoftirqd, kthreadd.
for p in $(pgrep '^kworker/' | head -n 12) $(pgrep '^ksoftirqd/') $(pgrep -x kthreadd); do
	cat /proc/$p/stat
done > kthreads.stat
# Threads of a process whose main thread named itself "x (y) z)" (prctl
# PR_SET_NAME): spaces and parentheses in comm.
python3 -c '
import ctypes, glob, threading
ctypes.CDLL(None).prctl(15, b"x (y) z)", 0, 0, 0)
ev = threading.Event()
t = threading.Thread(target=ev.wait); t.start()
for f in sorted(glob.glob("/proc/self/task/*/stat")):
    print(open(f).read().rstrip("\n"))
ev.set(); t.join()
' > odd-comm.stat
