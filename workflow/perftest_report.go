package workflow

import (
	"io"
	"strings"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
)

// WriteReport writes a run's report into dir: report.md, the runbook's
// answers for the rounds (report.WriteAnswersMarkdown) first and then md,
// and report.html, one page with sec (its findings, rounds and pictures
// inline) and that Markdown.
func WriteReport(dir, title, md string, sec page.Section) error {
	var answers strings.Builder
	if err := report.WriteAnswersMarkdown(&answers, sec.Rounds); err != nil {
		return err
	}
	sec.Markdown = answers.String() + md
	if _, err := WriteFile(dir, "report.md", func(f io.Writer) error {
		_, err := io.WriteString(f, sec.Markdown)
		return err
	}); err != nil {
		return err
	}
	return page.WriteFiles(dir, page.Page{Title: title, Sections: []page.Section{sec}})
}
