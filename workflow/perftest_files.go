package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// WriteFile writes dir/name through write, creating dir; the file is
// written whole or not at all (ownfile.WriteFile: a temporary file created
// with O_EXCL|O_NOFOLLOW, renamed into place, so a link planted in dir is
// never written through). A folder others can write is refused.
func WriteFile(dir, name string, write func(io.Writer) error) (string, error) {
	if err := ownfile.MkdirAll(dir); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	return path, ownfile.WriteFile(path, b.Bytes(), 0o644)
}

// PairFiles are the raw outputs of perftest pairs for a round's archive,
// named raw/REPEAT/ROLE.stdout|stderr, and the round's Outputs pointing at
// them.
func PairFiles(r *report.Round, pairs []*perftest.PairResult) []report.ArchiveFile {
	var files []report.ArchiveFile
	for i, p := range pairs {
		for _, st := range streams(p) {
			name := fmt.Sprintf("raw/%d/%s.%s", i, st.role, st.stream)
			files = append(files, report.ArchiveFile{Name: name, Data: st.data})
			r.Outputs = append(r.Outputs, report.Output{Repeat: i, Role: string(st.role), Stream: st.stream, Path: name})
		}
	}
	return files
}

// PairsFiles are the archive files of a step's runs: PairFiles of its
// pairs and their RDMA counter deltas (runbook.Pairs.CounterFiles).
func PairsFiles(r *report.Round, ps runbook.Pairs) ([]report.ArchiveFile, error) {
	counters, err := ps.CounterFiles()
	if err != nil {
		return nil, err
	}
	return append(PairFiles(r, ps.Pairs), counters...), nil
}

// stream is one output of one side of a pair.
type stream struct {
	role   perftest.Role
	stream string // "stdout" or "stderr"
	data   []byte
}

// streams are a pair's four outputs: server then client, stdout then
// stderr; none for a nil pair.
func streams(p *perftest.PairResult) []stream {
	if p == nil {
		return nil
	}
	var out []stream
	for _, s := range []perftest.Process{p.Server, p.Client} {
		out = append(out, stream{s.Role, "stdout", s.Stdout}, stream{s.Role, "stderr", s.Stderr})
	}
	return out
}

// SaveArchive writes the round's reproducibility archive as
// dir/NAME.tar.gz (report.WriteArchive) and returns its path.
func SaveArchive(dir string, r report.Round, files []report.ArchiveFile) (string, error) {
	return WriteFile(dir, r.Name+".tar.gz", func(w io.Writer) error { return report.WriteArchive(w, r, files) })
}

// SaveRound writes the round's archive into dir, then appends the round to
// store: the store never names a round whose archive is missing.
func SaveRound(store *report.Store, dir string, r report.Round, files []report.ArchiveFile) error {
	if _, err := SaveArchive(dir, r, files); err != nil {
		return err
	}
	return store.Append(r)
}

// KeepFailedPair writes the outputs of a pair that failed into
// dir/failed/NAME/ (server.stdout, client.stderr, ...), so that what both
// sides printed is kept beside the report; p may be nil (nothing started).
func KeepFailedPair(dir, name string, p *perftest.PairResult) error {
	for _, st := range streams(p) {
		if _, err := WriteFile(filepath.Join(dir, "failed", name), string(st.role)+"."+st.stream, func(w io.Writer) error {
			_, err := w.Write(st.data)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// KeepFailedPairs is KeepFailedPair for the repeats of a step, named
// PREFIX-1, PREFIX-2, ...
func KeepFailedPairs(dir, prefix string, pairs []*perftest.PairResult) error {
	var errs []error
	for i, p := range pairs {
		errs = append(errs, KeepFailedPair(dir, fmt.Sprintf("%s-%d", prefix, i+1), p))
	}
	return errors.Join(errs...)
}
