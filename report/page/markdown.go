package page

import (
	"regexp"
	"strings"
)

// Markdown renders the Markdown the examples write as HTML: headings,
// tables, lists (nested by two blanks), fenced and indented code,
// paragraphs, **bold**, `code`; an image is replaced by its alt text (the
// pictures are inline on the page). Everything else is escaped text.
//
// Similar to: pandoc -f markdown -t html report.md
func Markdown(md string) string {
	var b strings.Builder
	ls := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "```"):
			flush()
			b.WriteString("<pre>")
			for i++; i < len(ls) && !strings.HasPrefix(strings.TrimSpace(ls[i]), "```"); i++ {
				b.WriteString(esc(ls[i]) + "\n")
			}
			b.WriteString("</pre>\n")
		case strings.HasPrefix(l, "    ") && len(para) == 0:
			b.WriteString("<pre>")
			for ; i < len(ls) && (strings.HasPrefix(ls[i], "    ") || strings.TrimSpace(ls[i]) == ""); i++ {
				b.WriteString(esc(strings.TrimPrefix(ls[i], "    ")) + "\n")
			}
			i--
			b.WriteString("</pre>\n")
		case strings.HasPrefix(t, "#"):
			flush()
			n := len(t) - len(strings.TrimLeft(t, "#"))
			n = min(6, n+2) // the page's own h1 and h2 stay above
			b.WriteString("<h" + string(rune('0'+n)) + ">" + inline(strings.TrimSpace(t[n-2:])) + "</h" + string(rune('0'+n)) + ">\n")
		case strings.HasPrefix(t, "|"):
			flush()
			j := i
			for j < len(ls) && strings.HasPrefix(strings.TrimSpace(ls[j]), "|") {
				j++
			}
			b.WriteString(table(ls[i:j]))
			i = j - 1
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			flush()
			j := i
			for j < len(ls) && isItem(ls[j]) {
				j++
			}
			b.WriteString(list(ls[i:j]))
			i = j - 1
		default:
			para = append(para, t)
		}
	}
	flush()
	return b.String()
}

func isItem(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")
}

// list renders list lines, nested by their indentation.
func list(ls []string) string {
	var b strings.Builder
	var depth []int
	for _, l := range ls {
		ind := len(l) - len(strings.TrimLeft(l, " "))
		switch {
		case len(depth) == 0 || ind > depth[len(depth)-1]:
			b.WriteString("<ul>")
			depth = append(depth, ind)
		default:
			for len(depth) > 1 && ind < depth[len(depth)-1] {
				b.WriteString("</li></ul>")
				depth = depth[:len(depth)-1]
			}
			b.WriteString("</li>")
		}
		b.WriteString("<li>" + inline(strings.TrimSpace(l)[2:]))
	}
	for range depth {
		b.WriteString("</li></ul>")
	}
	return b.String() + "\n"
}

// table renders Markdown table lines; the |---| line is dropped.
func table(ls []string) string {
	var b strings.Builder
	b.WriteString("<div class=\"scroll\"><table>\n")
	for k, l := range ls {
		cells := splitRow(l)
		if k == 1 && isRule(cells) {
			continue
		}
		tag := "td"
		if k == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells {
			b.WriteString("<" + tag + ">" + inline(c) + "</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	return b.String() + "</table></div>\n"
}

// splitRow splits "| a | b \| c |" into cells, honouring \|.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	l = strings.ReplaceAll(l, `\|`, "\x00")
	var cells []string
	for _, c := range strings.Split(l, "|") {
		cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
	}
	return cells
}

var ruleCell = regexp.MustCompile(`^:?-+:?$`)

func isRule(cells []string) bool {
	for _, c := range cells {
		if !ruleCell.MatchString(c) {
			return false
		}
	}
	return true
}

var (
	imageRE = regexp.MustCompile(`!\[([^\]]*)\]\(([^)]*)\)`)
	codeRE  = regexp.MustCompile("`([^`]+)`")
	boldRE  = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// inline escapes s and renders images (as their alt text), code and bold.
func inline(s string) string {
	s = imageRE.ReplaceAllString(s, "[picture: $1]")
	s = esc(s)
	s = codeRE.ReplaceAllString(s, "<code>$1</code>")
	return boldRE.ReplaceAllString(s, "<b>$1</b>")
}
