package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/lab"
)

// cmdRxeErrors is the experiment behind the demo's rdma_rxe completion
// errors between two guests: it boots two guests of each suite joined by
// a link, runs ib_send_bw pairs over every (-q, -u) combination asked for,
// and prints for each pair both sides' exit, completion status and
// bandwidth with the deltas of the rxe port counters (hw_counters) on
// both ends.
//
//	lab rxe-errors -suite bookworm,trixie -qps 1,8 -u 14,20 -n 1000 -count 2
func cmdRxeErrors(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rxe-errors", flag.ExitOnError)
	var c commonFlags
	c.register(fs)
	qps := fs.String("qps", "1,2,4,8", "QP counts (-q)")
	us := fs.String("u", "14", "QP timeouts (-u: 4.096 us * 2^u)")
	iters := fs.Int("n", 1000, "iterations (-n)")
	count := fs.Int("count", 2, "pairs per combination")
	mtu := fs.Int("mtu", 1500, "netdev MTU of both guests")
	smp := fs.Int("smp", 2, "vCPUs per guest")
	extra := fs.String("extra", "", "more ib_send_bw flags for both sides")
	timeout := fs.Duration("timeout", 40*time.Minute, "deadline per suite")
	fs.Parse(args)

	var cfgs []string
	for _, q := range strings.Split(*qps, ",") {
		for _, u := range strings.Split(*us, ",") {
			for i := 0; i < *count; i++ {
				cfgs = append(cfgs, fmt.Sprintf("%s:%s:%d", q, u, i+1))
			}
		}
	}
	s, err := c.start(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	for _, img := range s.imgs {
		runCtx, cancel := context.WithTimeout(ctx, *timeout)
		err := rxeErrorsSuite(runCtx, s, img, cfgs, *iters, *mtu, *smp, *extra, os.Stdout)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// rxeSetup brings the link and rxe0 up and finds the RoCE v2 IPv4 GID
// index ($idx); snap prints the rxe0 port counters as "name=value".
const rxeSetup = `set -u
ip addr add $ADDR/24 dev eth0 && ip link set eth0 mtu $MTU up || exit 1
modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || exit 1
P=/sys/class/infiniband/rxe0/ports/1
idx=
for i in $(seq 100); do
  for t in $P/gid_attrs/types/*; do
    n=${t##*/}
    if [ "$(cat $t 2>/dev/null)" = "RoCE v2" ] && grep -q ':ffff:' $P/gids/$n; then idx=$n; break 2; fi
  done
  sleep 0.2
done
[ -n "$idx" ] || { echo "no RoCE v2 IPv4 GID"; exit 1; }
snap() { printf '@@ %s %s' "$1" "$2"; for f in $P/hw_counters/*; do printf ' %s=%s' "${f##*/}" "$(cat $f)"; done; echo; }
`

// rxeServer runs one server per combination, in order.
const rxeServer = rxeSetup + `for cfg in $CFGS; do
  q=${cfg%%:*}; r=${cfg#*:}; u=${r%%:*}
  snap $cfg before
  timeout 300 ib_send_bw -d rxe0 -x $idx -q $q -u $u -n $N -F --report_gbits $EXTRA > /tmp/out 2> /tmp/err
  rc=$?
  snap $cfg after
  echo "@@ $cfg exit $rc"; sed "s/^/@@ $cfg out /" /tmp/out /tmp/err
done
`

// rxeClient runs the clients, retrying a connection the server is not
// listening for yet (a refused connect never reaches a server).
const rxeClient = rxeSetup + `for cfg in $CFGS; do
  q=${cfg%%:*}; r=${cfg#*:}; u=${r%%:*}
  snap $cfg before
  while :; do
    timeout 300 ib_send_bw -d rxe0 -x $idx -q $q -u $u -n $N -F --report_gbits $EXTRA $PEER > /tmp/out 2> /tmp/err
    rc=$?
    grep -q "Couldn't connect" /tmp/err || break
    sleep 0.3
  done
  snap $cfg after
  echo "@@ $cfg exit $rc"; sed "s/^/@@ $cfg out /" /tmp/out /tmp/err
done
`

func rxeErrorsSuite(ctx context.Context, s *session, img *lab.Image, cfgs []string, iters, mtu, smp int, extra string, w io.Writer) error {
	suite := img.Manifest.Suite
	env := func(addr string) []string {
		return []string{"ADDR=" + addr, "MTU=" + strconv.Itoa(mtu), "N=" + strconv.Itoa(iters),
			"CFGS=" + strings.Join(cfgs, " "), "EXTRA=" + extra, "PEER=198.18.100.2"}
	}
	guest := func(name, addr, script string) lab.Guest {
		return lab.Guest{Name: suite + "-" + name, Image: img, SMP: smp, NICs: []lab.NIC{{Network: "wire"}},
			Plan: lab.Plan{Env: env(addr), Steps: []lab.Step{{Name: name, Path: "/bin/sh", Args: []string{"-c", script}, Timeout: 60 * time.Minute}}}}
	}
	began := time.Now()
	res, err := lab.Run(ctx, []lab.Guest{guest("server", "198.18.100.2", rxeServer), guest("client", "198.18.100.1", rxeClient)},
		lab.RunOptions{Agent: s.agent, Live: os.Stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## %s (kernel %s, %d vCPUs per guest, MTU %d, -n %d %s; %s)\n\n", suite, res[0].Agent.Kernel, smp, mtu, iters, extra, time.Since(began).Round(time.Second))
	server, client := parseRxeRuns(res[0].Steps[0].Stdout), parseRxeRuns(res[1].Steps[0].Stdout)
	fmt.Fprintln(w, "| -q | -u | run | client | server | BW avg Gb/s | client counters Δ | server counters Δ |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, cfg := range cfgs {
		p := strings.Split(cfg, ":")
		cl, sv := client[cfg], server[cfg]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", p[0], p[1], p[2], cl.outcome(), sv.outcome(), cl.bw, cl.deltas(), sv.deltas())
	}
	return nil
}

// rxeRun is one side of one pair as the script printed it.
type rxeRun struct {
	exit          string
	status        string // "Failed status N" text
	bw            string
	before, after map[string]uint64
}

var (
	statusRe = regexp.MustCompile(`Failed status[- ]?([^:]*):`)
	bwRowRe  = regexp.MustCompile(`^\s*65536\s+\d+\s+[\d.]+\s+([\d.]+)`)
)

func parseRxeRuns(out []byte) map[string]*rxeRun {
	runs := map[string]*rxeRun{}
	get := func(cfg string) *rxeRun {
		if runs[cfg] == nil {
			runs[cfg] = &rxeRun{}
		}
		return runs[cfg]
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) < 3 || f[0] != "@@" {
			continue
		}
		r := get(f[1])
		rest := ""
		if len(f) == 4 {
			rest = f[3]
		}
		switch f[2] {
		case "before", "after":
			m := map[string]uint64{}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				n, _ := strconv.ParseUint(v, 10, 64)
				m[k] = n
			}
			if f[2] == "before" {
				r.before = m
			} else {
				r.after = m
			}
		case "exit":
			r.exit = rest
		case "out":
			if m := statusRe.FindStringSubmatch(rest); m != nil && r.status == "" {
				r.status = strings.TrimSpace(m[1])
			}
			if m := bwRowRe.FindStringSubmatch(rest); m != nil {
				r.bw = m[1]
			}
		}
	}
	return runs
}

func (r *rxeRun) outcome() string {
	if r == nil {
		return "—"
	}
	if r.status != "" {
		return "exit " + r.exit + ", status " + r.status
	}
	return "exit " + r.exit
}

func (r *rxeRun) deltas() string {
	if r == nil || r.after == nil {
		return "—"
	}
	var names []string
	for k := range r.after {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		if d := r.after[k] - r.before[k]; d != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, d))
		}
	}
	return strings.Join(parts, ", ")
}
