package page

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/plot"
)

// Page is one HTML report: a title, a paragraph, and one section per run
// or example. The findings of every section are listed first.
type Page struct {
	Title    string
	Intro    string // plain text, one paragraph
	Sections []Section
}

// Section is one run's part of the page.
type Section struct {
	Title    string
	Intro    string           // plain text, one paragraph
	Findings []report.Finding // shown first on the page, most severe first
	// Rounds are shown side by side: median ± CI per metric (per-CPU
	// and interim metrics left out; the pictures show them).
	Rounds  []report.Round
	Figures []plot.Figure
	// Markdown is the run's own report, rendered after the pictures.
	Markdown string
	// Notes are shown under the pictures: what could not be drawn.
	Notes []string
}

// Write writes the page as one HTML document.
//
// Similar to: pandoc report.md -s --embed-resources -o report.html
func Write(w io.Writer, p Page) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		esc(p.Title), css)
	fmt.Fprintf(bw, "<h1>%s</h1>\n", esc(p.Title))
	if p.Intro != "" {
		fmt.Fprintf(bw, "<p>%s</p>\n", esc(p.Intro))
	}
	writeAnswers(bw, p.Sections)
	writeFindings(bw, p.Sections)
	for i, s := range p.Sections {
		writeSection(bw, i, s)
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.Flush()
}

// writeAnswers opens the page with what the runbooks ask, in one compact
// table: each round's rate, ceiling, share and bottleneck as stored with
// it (report.Round.Bottleneck), the verdict's sentence cut to a line
// (the whole of it is in the run's report below).
func writeAnswers(bw *bufio.Writer, secs []Section) {
	var rows strings.Builder
	for _, s := range secs {
		for i, a := range report.Answers(s.Rounds) {
			run := ""
			if i == 0 && len(secs) > 1 {
				run = s.Title
			}
			fmt.Fprintf(&rows, "<tr><td>%s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td><b>%s</b>: %s</td></tr>\n",
				esc(run), esc(a.Round), esc(a.Rate), esc(a.Ceiling), esc(a.Share), esc(a.Bound), esc(firstClause(a.Summary, 90)))
		}
	}
	if rows.Len() == 0 {
		return
	}
	bw.WriteString("<h2 id=\"answers\">Answers</h2>\n<div class=\"scroll answers\"><table>\n" +
		"<tr><th>run</th><th>round</th><th>rate</th><th>ceiling</th><th>share</th><th>bottleneck</th></tr>\n")
	bw.WriteString(rows.String())
	bw.WriteString("</table></div>\n")
}

// firstClause cuts s at its first "; " (the verdict's second clause),
// then to at most n runes with an ellipsis.
func firstClause(s string, n int) string {
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// writeFindings lists every section's findings, the most severe first.
func writeFindings(bw *bufio.Writer, secs []Section) {
	bw.WriteString("<h2 id=\"findings\">Findings</h2>\n")
	var all []report.Finding
	var owner []int
	for i, s := range secs {
		for _, f := range s.Findings {
			all, owner = append(all, f), append(owner, i)
		}
	}
	if len(all) == 0 {
		bw.WriteString("<p>No rule found anything to report.</p>\n")
		return
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	rank := map[report.Severity]int{report.SeverityCritical: 0, report.SeverityWarning: 1, report.SeverityInfo: 2}
	sortStable(idx, func(a, b int) bool { return rank[all[a].Severity] < rank[all[b].Severity] })
	bw.WriteString("<ul class=\"findings\">\n")
	for _, i := range idx {
		f := all[i]
		fmt.Fprintf(bw, "<li class=\"%s\"><span class=\"sev\">%s</span> ", esc(string(f.Severity)), esc(string(f.Severity)))
		if len(secs) > 1 || secs[owner[i]].Title != "" {
			fmt.Fprintf(bw, "<a href=\"#s%d\">%s</a> · ", owner[i], esc(secs[owner[i]].Title))
		}
		fmt.Fprintf(bw, "<b>%s</b>: %s", esc(f.Rule), esc(f.Summary))
		if f.Action != "" {
			fmt.Fprintf(bw, "<br><span class=\"action\">%s</span>", esc(f.Action))
		}
		bw.WriteString("</li>\n")
	}
	bw.WriteString("</ul>\n")
}

// writeSection writes one section: intro, rounds, figures, Markdown.
func writeSection(bw *bufio.Writer, i int, s Section) {
	fmt.Fprintf(bw, "<section id=\"s%d\">\n<h2>%s</h2>\n", i, esc(s.Title))
	if s.Intro != "" {
		fmt.Fprintf(bw, "<p>%s</p>\n", esc(s.Intro))
	}
	if len(s.Rounds) > 0 {
		bw.WriteString("<h3>Rounds side by side</h3>\n")
		writeRounds(bw, s.Rounds)
	}
	for _, f := range s.Figures {
		fmt.Fprintf(bw, "<figure id=\"%s\">\n%s\n<figcaption>%s</figcaption>\n</figure>\n", esc(anchor(i, f.Name)), inlineSVG(f.SVG), esc(f.Caption))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(bw, "<p class=\"note\">%s</p>\n", esc(n))
	}
	if s.Markdown != "" {
		bw.WriteString("<details open>\n<summary>The run's report</summary>\n<div class=\"md\">\n")
		bw.WriteString(Markdown(s.Markdown))
		bw.WriteString("</div>\n</details>\n")
	}
	bw.WriteString("</section>\n")
}

func anchor(sec int, name string) string { return fmt.Sprintf("s%d-%s", sec, name) }

// writeRounds writes the rounds side by side: one row per metric, one
// column per round, median ± CI as benchstat prints it.
func writeRounds(bw *bufio.Writer, rounds []report.Round) {
	rows := report.SideBySide(rounds, func(m report.Metric) bool {
		_, cpu := m.Label("cpu")
		return !cpu && !strings.HasPrefix(m.Name, "interim_")
	})
	bw.WriteString("<div class=\"scroll\"><table>\n<tr><th>metric</th><th>unit</th>")
	for _, r := range rounds {
		fmt.Fprintf(bw, "<th>%s</th>", esc(r.Name))
	}
	bw.WriteString("</tr>\n")
	for _, row := range rows {
		fmt.Fprintf(bw, "<tr><td>%s</td><td>%s</td>", esc(row.Key), esc(row.Unit))
		for _, m := range row.Cells {
			if len(m.Values) == 0 {
				bw.WriteString("<td class=\"num\">—</td>")
				continue
			}
			s := report.Summarize(m)
			ci := "no CI"
			if s.HasCI() {
				ci = "± " + s.PctRange()
			}
			fmt.Fprintf(bw, "<td class=\"num\">%.4g <small>%s, n=%d</small></td>", s.Median, esc(ci), s.N)
		}
		bw.WriteString("</tr>\n")
	}
	bw.WriteString("</table></div>\n")
}

var xmlHeader = regexp.MustCompile(`(?s)^<\?xml.*?\?>\s*(<!--.*?-->\s*)?`)

// inlineSVG drops the XML declaration and comment of an SVG document so
// that it can sit in HTML.
func inlineSVG(b []byte) string { return xmlHeader.ReplaceAllString(string(b), "") }

func esc(s string) string { return html.EscapeString(s) }

// sortStable sorts idx by less, keeping equal elements in order.
func sortStable(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

const css = `
body{font-family:'Liberation Sans',Arial,Helvetica,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#111;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ccc;margin-top:2rem}h3{font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}td,th{border:1px solid #ccc;padding:.2rem .4rem;vertical-align:top}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;white-space:nowrap}
.scroll{overflow-x:auto}
figure{margin:1rem 0;max-width:100%;overflow-x:auto}figure svg{width:100%;max-width:48rem;height:auto}figcaption{font-size:.85rem;color:#444;max-width:45rem}
ul.findings{padding-left:1.2rem}ul.findings li{margin:.3rem 0}
.sev{display:inline-block;min-width:4.5rem;font-weight:bold;text-transform:uppercase;font-size:.75rem}
li.critical .sev{color:#b00}li.warning .sev{color:#a60}li.info .sev{color:#06a}
.action{color:#444;font-size:.85rem}.note{color:#a60}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;font-size:.8rem}code{font-size:.85em}
details summary{cursor:pointer;font-weight:bold;margin:.5rem 0}
`
