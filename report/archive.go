package report

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/host"
)

// ErrArchive is wrapped by the errors of ReadArchive and WriteArchive: a
// file name that would escape the archive, a missing round.json, a file
// over the size limit, or a damaged tar.gz.
var ErrArchive = errors.New("report: bad archive")

// ArchiveFile is one file of a round's reproducibility archive: a raw tool
// output ("raw/0/client.stdout"), an ethtool or /proc/interrupts snapshot
// taken before or after the round ("snapshots/before/interrupts"), or
// anything else needed to understand the round.
type ArchiveFile struct {
	Name string // slash-separated and relative: "raw/0/client.stdout"
	Data []byte // the content
}

// The files WriteArchive generates; callers' files may not use these names.
const (
	ArchiveRound       = "round.json"       // the round, as the store keeps it
	ArchiveFingerprint = "fingerprint.json" // the environment
	ArchiveArgv        = "argv.txt"         // each side's command line
	ArchiveRerun       = "rerun.sh"         // the commands to rerun the round
	ArchiveMarkdown    = "report.md"        // WriteRoundMarkdown
)

// maxArchiveFile bounds one file read from an archive (256 MiB).
const maxArchiveFile = 256 << 20

// WriteArchive writes the reproducibility archive of a round as tar.gz:
// round.json, fingerprint.json, argv.txt (each side's exact command),
// rerun.sh (the commands to run it again, server first), report.md, and
// the caller's files (raw outputs, snapshots before and after) under their
// names. Entries are dated at the round's start, so the same round gives
// the same archive. The error wraps ErrArchive for a file name that is
// absolute, holds "..", or is one of the generated names.
//
// Similar to: tar czf round.tar.gz *.out ethtool-*.txt interrupts-*.txt notes.md
func WriteArchive(w io.Writer, r Round, files []ArchiveFile) error {
	gen := map[string]bool{ArchiveRound: true, ArchiveFingerprint: true, ArchiveArgv: true, ArchiveRerun: true, ArchiveMarkdown: true}
	for _, f := range files {
		if err := checkArchiveName(f.Name); err != nil {
			return err
		}
		if gen[f.Name] {
			return fmt.Errorf("%w: %s is generated", ErrArchive, f.Name)
		}
	}
	roundJSON, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: archive: %w", err)
	}
	fpJSON, _ := json.MarshalIndent(r.Fingerprint, "", "  ")
	var md bytes.Buffer
	if err := WriteRoundMarkdown(&md, r); err != nil {
		return err
	}
	all := []ArchiveFile{
		{ArchiveRound, append(roundJSON, '\n')},
		{ArchiveFingerprint, append(fpJSON, '\n')},
		{ArchiveArgv, []byte(argvText(r))},
		{ArchiveRerun, []byte(rerunScript(r))},
		{ArchiveMarkdown, md.Bytes()},
	}
	all = append(all, files...)
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range all {
		mode := int64(0o644)
		if f.Name == ArchiveRerun {
			mode = 0o755
		}
		hdr := &tar.Header{Name: f.Name, Mode: mode, Size: int64(len(f.Data)), ModTime: r.Start, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("report: archive %s: %w", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("report: archive %s: %w", f.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("report: archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("report: archive: %w", err)
	}
	return nil
}

// ReadArchive reads an archive WriteArchive wrote: the round from
// round.json and every other file, in order. Errors wrap ErrArchive.
func ReadArchive(rd io.Reader) (Round, []ArchiveFile, error) {
	var round Round
	var files []ArchiveFile
	gz, err := gzip.NewReader(rd)
	if err != nil {
		return round, nil, fmt.Errorf("%w: %v", ErrArchive, err)
	}
	tr := tar.NewReader(gz)
	found := false
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return round, files, fmt.Errorf("%w: %v", ErrArchive, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if err := checkArchiveName(hdr.Name); err != nil {
			return round, files, err
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxArchiveFile+1))
		if err != nil {
			return round, files, fmt.Errorf("%w: %s: %v", ErrArchive, hdr.Name, err)
		}
		if len(data) > maxArchiveFile {
			return round, files, fmt.Errorf("%w: %s is over %d bytes", ErrArchive, hdr.Name, maxArchiveFile)
		}
		if hdr.Name == ArchiveRound {
			r, err := decodeRound(data)
			if err != nil {
				return round, files, fmt.Errorf("%w: %s: %v", ErrArchive, ArchiveRound, err)
			}
			round, found = r, true
			continue
		}
		files = append(files, ArchiveFile{hdr.Name, data})
	}
	if !found {
		return round, files, fmt.Errorf("%w: no %s", ErrArchive, ArchiveRound)
	}
	return round, files, nil
}

func checkArchiveName(name string) error {
	if name == "" || path.IsAbs(name) || strings.HasPrefix(name, "\\") || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
		return fmt.Errorf("%w: file name %q", ErrArchive, name)
	}
	return nil
}

func argvText(r Round) string {
	var b strings.Builder
	if r.Fingerprint == nil {
		return ""
	}
	for _, a := range r.Fingerprint.Argv {
		who := a.Role
		if a.Host != "" {
			who += "@" + a.Host
		}
		fmt.Fprintf(&b, "%s: %s\n", oneLine(who), host.QuoteCommand(a.Argv))
	}
	return b.String()
}

// rerunScript gives the commands to run the round again: each side's
// MTUs and sysctls first, then the servers, in the background, then the
// other sides. Every word is quoted (host.Quote); a command for a peer
// is quoted once more for its remote shell.
func rerunScript(r Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Rerun round %s (started %s).\nset -e\n", oneLine(r.Name), r.Start.UTC().Format("2006-01-02T15:04:05Z"))
	if r.Fingerprint == nil || len(r.Fingerprint.Argv) == 0 {
		b.WriteString("# No command lines were recorded.\n")
		return b.String()
	}
	writeSetup(&b, r.Fingerprint.Argv)
	servers, waits := 0, false
	for _, a := range r.Fingerprint.Argv {
		if a.Role != "server" {
			continue
		}
		fmt.Fprintf(&b, "# %s\n%s &\nservers=\"$servers $!\"\n", a.Role, onSide(a, a.Argv))
		if servers == 0 {
			// A server left behind (the client failed, set -e) would hold
			// the terminal, or the caller's pipe, open.
			b.WriteString("trap 'kill $servers 2>/dev/null || true' EXIT\n")
		}
		servers++
		// netserver serves until it is ended (the trap does): only
		// perftest's server is waited for.
		waits = waits || !isNetserver(a.Argv)
		port, ok := serverPort(a.Argv)
		if !ok {
			b.WriteString("sleep 2 # let the server listen (its port is not known)\n")
			continue
		}
		listening := onSide(a, inNetns(a.Netns, "ss", "-Hltn", fmt.Sprintf("sport = :%d", port)))
		fmt.Fprintf(&b, "# wait until it listens on TCP %d (at most 30 s), instead of guessing how long it takes\n"+
			"n=0\nuntil %s | grep -q .; do\n"+
			"\tn=$((n+1)); if [ $n -ge 150 ]; then echo 'rerun.sh: the server does not listen on TCP %d after 30 s' >&2; exit 1; fi\n"+
			"\tsleep 0.2\ndone\n", port, listening, port)
	}
	for _, a := range r.Fingerprint.Argv {
		if a.Role != "server" {
			fmt.Fprintf(&b, "# %s\n%s\n", oneLine(a.Role), onSide(a, a.Argv))
		}
	}
	if waits {
		b.WriteString("wait # for perftest's server, which ends with its client\n")
	}
	return b.String()
}

// serverPort is the TCP port a server's argv listens on: its -p, or the
// default of perftest (18515) and netserver (12865); !ok for another
// program.
func serverPort(argv []string) (int, bool) {
	def := 0
	for i, w := range argv {
		name := path.Base(w)
		switch {
		case strings.HasPrefix(name, "ib_") && def == 0:
			def = 18515
		case name == "netserver" && def == 0:
			def = 12865
		case (w == "-p" || w == "--port") && def != 0 && i+1 < len(argv):
			if p, err := strconv.Atoi(argv[i+1]); err == nil && p > 0 && p < 65536 {
				return p, true
			}
		case strings.HasPrefix(w, "--port=") && def != 0:
			if p, err := strconv.Atoi(strings.TrimPrefix(w, "--port=")); err == nil && p > 0 && p < 65536 {
				return p, true
			}
		}
	}
	return def, def != 0
}

// isNetserver says whether a server's argv runs netserver.
func isNetserver(argv []string) bool {
	return slices.ContainsFunc(argv, func(w string) bool { return path.Base(w) == "netserver" })
}

// writeSetup writes the commands that set each side's MTUs and sysctls
// as they were in the round and add its rxe links where missing, each
// command once (both ends on one host share them).
func writeSetup(b *strings.Builder, sides []SideArgv) {
	seen := map[string]bool{}
	header := false
	for _, a := range sides {
		var cmds []string
		for _, m := range a.MTUs {
			cmds = append(cmds, onSide(a, inNetns(a.Netns, "ip", "link", "set", "dev", m.Netdev, "mtu", strconv.Itoa(m.MTU))))
		}
		for _, p := range a.Sysctls {
			cmds = append(cmds, onSide(a, inNetns(a.Netns, "sysctl", "-w", p.Key+"="+p.Value)))
		}
		for _, x := range a.RXE {
			add := "rdma link show " + host.QuoteCommand([]string{x.Link + "/1"}) + " >/dev/null 2>&1 || rdma link add " + host.QuoteCommand([]string{x.Link, "type", "rxe", "netdev", x.Netdev})
			cmds = append(cmds, onSide(a, inNetns(a.Netns, "sh", "-c", add)))
		}
		cmds = slices.DeleteFunc(cmds, func(c string) bool { return seen[c] })
		if len(cmds) == 0 {
			continue
		}
		if !header {
			b.WriteString("# What the round ran with, set again first: MTUs and sysctls. Not journaled:\n" +
				"# note the values there are now, and set them back by hand afterwards.\n")
			header = true
		}
		where := a.Role
		switch {
		case a.Host != "":
			where += " on " + a.Host
		case a.Netns != "":
			where += " in netns " + a.Netns
		}
		fmt.Fprintf(b, "# %s\n", oneLine(where))
		for _, c := range cmds {
			seen[c] = true
			b.WriteString(c + "\n")
		}
	}
}

// inNetns runs argv in the namespace ns ("" for none).
func inNetns(ns string, argv ...string) []string {
	if ns == "" {
		return argv
	}
	return append([]string{"ip", "netns", "exec", ns}, argv...)
}

// onSide is the command line that runs argv where side a ran: here, or
// over SSH as OpenSSH takes a target: ssh -p PORT -- USER@HOST, an IPv6
// literal without its brackets ("root@[fe80::1]:22" is no host name to
// ssh). "--" keeps a host that starts with "-" from being an option.
func onSide(a SideArgv, argv []string) string {
	cmd := host.QuoteCommand(argv)
	if a.Host == "" {
		return cmd
	}
	user, addr, ok := strings.Cut(a.Host, "@")
	if !ok {
		user, addr = "", a.Host
	}
	ssh := []string{"ssh"}
	if h, port, err := net.SplitHostPort(addr); err == nil {
		addr = h
		ssh = append(ssh, "-p", port)
	} else {
		addr = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	}
	if ok {
		addr = user + "@" + addr
	}
	return host.QuoteCommand(append(ssh, "--", addr)) + " " + host.Quote(cmd)
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// JSONFile encodes v (a nic.Snapshot, an irq.Distribution, interrupts
// before and after) as an indented JSON archive file.
func JSONFile(name string, v any) (ArchiveFile, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ArchiveFile{}, fmt.Errorf("report: archive %s: %w", name, err)
	}
	return ArchiveFile{Name: name, Data: append(b, '\n')}, nil
}
