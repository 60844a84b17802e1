package page

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rocekit/rocekit/internal/ownfile"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/plot"
)

// WriteFiles writes the page into dir as report.html and every figure
// beside it as NAME.svg (SECTION-NAME.svg when an earlier section has a
// picture of that name), each file whole or not at all (written to a
// temporary name and renamed, as ownfile.WriteFile does: a link planted
// in dir is replaced, never written through). dir is created if missing;
// a folder others can write is refused.
//
// Similar to: saving a spreadsheet's charts and the report beside the data
func WriteFiles(dir string, p Page) error {
	if err := ownfile.MkdirAll(dir); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	var errs []error
	seen := map[string]bool{}
	for _, s := range p.Sections {
		for _, f := range s.Figures {
			name := f.Name + ".svg"
			if seen[name] { // two sections drew a picture of one name
				name = plot.FileName(s.Title) + "-" + name
			}
			seen[name] = true
			errs = append(errs, writeFile(dir, name, f.SVG))
		}
	}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	errs = append(errs, writeFile(dir, "report.html", b.Bytes()))
	return errors.Join(errs...)
}

// Redraw draws rounds again, as a store keeps them, into dir: report.html
// with the section FromRounds makes and every picture as NAME.svg.
//
// Similar to: re-running the charts of an old results.jsonl
func Redraw(dir, title string, rounds []report.Round) error {
	if len(rounds) == 0 {
		return fmt.Errorf("%w: no rounds to draw", report.ErrNoData)
	}
	return WriteFiles(dir, Page{Title: title, Sections: []Section{FromRounds(title, rounds)}})
}

func writeFile(dir, name string, b []byte) error {
	if err := ownfile.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	return nil
}
