package runbook

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
)

// WriteFile writes dir/name through write, creating dir; the file is
// written whole or not at all (a temporary file renamed into place).
func WriteFile(dir, name string, write func(io.Writer) error) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// PairFiles are the raw outputs of perftest pairs for a round's archive,
// named raw/REPEAT/ROLE.stdout|stderr, and the round's Outputs pointing at
// them.
func PairFiles(r *report.Round, pairs []*perftest.PairResult) []report.ArchiveFile {
	var files []report.ArchiveFile
	for i, p := range pairs {
		for _, s := range []perftest.Side{p.Server, p.Client} {
			for _, st := range []struct {
				name string
				data []byte
			}{{"stdout", s.Stdout}, {"stderr", s.Stderr}} {
				name := fmt.Sprintf("raw/%d/%s.%s", i, s.Role, st.name)
				files = append(files, report.ArchiveFile{Name: name, Data: st.data})
				r.Outputs = append(r.Outputs, report.Output{Repeat: i, Role: string(s.Role), Stream: st.name, Path: name})
			}
		}
	}
	return files
}

// WriteArchive writes the round's reproducibility archive as
// dir/NAME.tar.gz (report.WriteArchive) and returns its path.
func WriteArchive(dir string, r report.Round, files []report.ArchiveFile) (string, error) {
	return WriteFile(dir, r.Name+".tar.gz", func(w io.Writer) error { return report.WriteArchive(w, r, files) })
}

// KeepFailedPair writes the outputs of a pair that failed into
// dir/failed/NAME/ (server.stdout, client.stderr, ...), so that what both
// sides printed is kept beside the report; p may be nil (nothing started).
func KeepFailedPair(dir, name string, p *perftest.PairResult) error {
	if p == nil {
		return nil
	}
	for _, s := range []perftest.Side{p.Server, p.Client} {
		for _, st := range []struct {
			ext  string
			data []byte
		}{{"stdout", s.Stdout}, {"stderr", s.Stderr}} {
			if _, err := WriteFile(filepath.Join(dir, "failed", name), string(s.Role)+"."+st.ext, func(w io.Writer) error {
				_, err := w.Write(st.data)
				return err
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
