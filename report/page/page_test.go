package page

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	stdhtml "html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/report"
)

// demoSection is a section of the lab demo's rounds and report
// (report/plot/testdata/demo-trixie, testdata/NAME.md).
func demoSection(t testing.TB, name string) Section {
	t.Helper()
	rs, _, err := report.OpenStore(filepath.Join("..", "plot", "testdata", "demo-trixie", name+".jsonl")).Load()
	if err != nil || len(rs) == 0 {
		t.Fatalf("%s: %d rounds, %v", name, len(rs), err)
	}
	s := FromRounds(name, rs)
	if md, err := os.ReadFile(filepath.Join("testdata", name+".md")); err == nil {
		s.Markdown = string(md)
	}
	return s
}

func demoPage(t testing.TB) Page {
	var secs []Section
	for _, n := range []string{"netperf-udp-tuning", "mtu-sweep", "qp-scaling", "softroce-baseline"} {
		secs = append(secs, demoSection(t, n))
	}
	return Page{Title: "rocekit demo (trixie)", Intro: "Two QEMU guests; numbers are emulated.", Sections: secs}
}

func TestMarkdown(t *testing.T) {
	md := "# Title\n\nSome **bold** and `code` text\ncontinued.\n\n| a | b \\| c |\n|---|--:|\n| 1 | 2 |\n\n- one\n  - nested <x>\n- two\n\n    indented code\n\n![cpu](cpu-A.svg)\n"
	want := "<h3>Title</h3>\n<p>Some <b>bold</b> and <code>code</code> text continued.</p>\n" +
		"<div class=\"scroll\"><table>\n<tr><th>a</th><th>b | c</th></tr>\n<tr><td>1</td><td>2</td></tr>\n</table></div>\n" +
		"<ul><li>one<ul><li>nested &lt;x&gt;</li></ul></li><li>two</li></ul>\n<pre>indented code\n\n</pre>\n<p>[picture: cpu]</p>\n"
	if got := Markdown(md); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestStoredFindings: the page lists the findings stored with the
// rounds, each once, the most severe first, and works them out only for
// rounds stored without any.
func TestStoredFindings(t *testing.T) {
	jitter := report.Finding{Rule: report.RuleJitter, Severity: report.SeverityWarning, Summary: "t_max 9 × t_typical"}
	failed := report.Finding{Rule: report.RuleRunFailed, Severity: report.SeverityCritical, Summary: "1 of 3 runs failed"}
	rs := []report.Round{{Name: "a", Findings: []report.Finding{jitter}}, {Name: "b", Findings: []report.Finding{jitter, failed}}}
	s := FromRounds("x", rs)
	if len(s.Findings) != 2 || s.Findings[0].Rule != failed.Rule || s.Findings[1].Rule != jitter.Rule {
		t.Errorf("findings %+v", s.Findings)
	}
}

// TestPageSelfContained checks the page of the demo's rounds: findings
// before the pictures, every picture inline, nothing loaded from
// elsewhere.
func TestPageSelfContained(t *testing.T) {
	p := demoPage(t)
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "http://", "https://"} {
		if i := strings.Index(h, bad); i >= 0 && !strings.Contains(h[max(0, i-40):i], "xmlns") {
			t.Errorf("page has %q: %q", bad, h[max(0, i-60):min(len(h), i+60)])
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(h, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link out of the page: %s", m[1])
		}
	}
	nfig := 0
	for _, s := range p.Sections {
		for _, f := range s.Figures {
			nfig++
			if !strings.Contains(h, `<figure id="`) || !strings.Contains(h, esc(f.Title)) {
				t.Errorf("figure %s missing", f.Name)
			}
		}
	}
	if got := strings.Count(h, "<svg "); got != nfig || nfig < 6 {
		t.Errorf("%d inline SVGs, want %d (at least 6)", got, nfig)
	}
	if strings.Index(h, `id="findings"`) > strings.Index(h, "<figure") {
		t.Error("findings do not come before the pictures")
	}
	for _, w := range []string{"udp_loss", "udp_stream_A_default", "Rounds side by side", "The run's report", "ib_send_bw_mtu9000"} {
		if !strings.Contains(h, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if dir := os.Getenv("ROCEKIT_PAGE_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, "report.html"), b.Bytes(), 0o644)
	}
}

// TestPageInChromium opens the demo page in headless Chromium, as a
// reader would, and checks the screenshot: a whole page, with the
// pictures drawn (many non-white pixels), and the DOM holding every SVG.
func TestPageInChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no /usr/bin/chromium (Debian package chromium): the page is not opened in a browser")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	p := demoPage(t)
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile")}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromium, append(flags, "--window-size=1000,2400", "--screenshot="+shot, "file://"+page)...).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 1000 || r.Dy() != 2400 {
		t.Errorf("screenshot %v, want 1000x2400", r)
	}
	dark := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			if r, g, bb, _ := img.At(x, y).RGBA(); r+g+bb < 3*0xe000 {
				dark++
			}
		}
	}
	if dark < 20000 {
		t.Errorf("screenshot has %d non-white sample pixels: the page looks empty", dark)
	}
	dom, err := exec.CommandContext(ctx, chromium, append(flags, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	want := strings.Count(b.String(), "<svg ")
	if got := strings.Count(string(dom), "<svg "); got != want {
		t.Errorf("the browser's DOM has %d SVGs, the page %d", got, want)
	}
	if d := os.Getenv("ROCEKIT_PAGE_OUT"); d != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(d, "report-chromium.png"), b, 0o644)
	}
}

func TestRedraw(t *testing.T) {
	dir := t.TempDir()
	rs, _, err := report.OpenStore(filepath.Join("..", "plot", "testdata", "demo-trixie", "netperf-udp-tuning.jsonl")).Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := Redraw(dir, "udp tuning", rs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.html", "throughput.svg", "cpu-udp_stream_A_default.svg", "cpu-udp_stream_C_mtu9000_irqspread.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) < 1000 {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	h, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(h), "udp_loss") {
		t.Error("redrawn page lacks the udp_loss finding")
	}
	if err := Redraw(dir, "none", nil); !errors.Is(err, report.ErrNoData) {
		t.Errorf("no rounds: %v, want report.ErrNoData", err)
	}
}

func TestWriteFilesNamesClash(t *testing.T) {
	dir := t.TempDir()
	a := demoSection(t, "mtu-sweep")
	b := demoSection(t, "mtu-sweep")
	b.Title = "mtu sweep again"
	if err := WriteFiles(dir, Page{Title: "two", Sections: []Section{a, b}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rounds.svg", "mtu_sweep_again-rounds.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// The answers stored with the rounds open the page, before the findings.
func TestPageOpensWithAnswers(t *testing.T) {
	p := demoPage(t)
	v := report.Bottleneck(report.BottleneckInput{Round: &p.Sections[1].Rounds[0]})
	if v == nil {
		t.Fatalf("no verdict for %s", p.Sections[1].Rounds[0].Name)
	}
	p.Sections[1].Rounds[0].Bottleneck = v
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	a, f := strings.Index(h, `id="answers"`), strings.Index(h, `id="findings"`)
	if a < 0 || a > f || !strings.Contains(h[a:f], "<td>mtu-sweep</td><td>ib_send_bw_mtu1500</td>") {
		t.Fatalf("answers at %d, findings at %d: %s", a, f, h[max(a, 0):f])
	}
	if !strings.Contains(h[a:f], "none-found") || !strings.Contains(h[a:f], "no known ceiling") {
		t.Errorf("answers %s", h[a:f])
	}
}

// firstScreenProbe runs in the browser after load: where the answers'
// heading is, whether it and the page title fit the first 1280×800
// screen, and which text boxes there overlap. It writes its findings into
// the DOM, which --dump-dom returns.
const firstScreenProbe = `<script>
window.addEventListener("load", () => {
  const h = window.innerHeight, out = {height: h, outer: outerWidth + "x" + outerHeight, headings: [], overlaps: []};
  for (const e of document.querySelectorAll("h1, #answers, .answers tr:nth-child(2)")) {
    const r = e.getBoundingClientRect();
    out.headings.push({text: e.textContent, bottom: r.bottom});
  }
  const boxes = [];
  for (const e of document.querySelectorAll("h1, h2, p, li, th, td, summary")) {
    const r = e.getBoundingClientRect();
    if (r.top < h && r.width > 0 && r.height > 0 && e.textContent.trim() !== "") boxes.push({e, r});
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
    const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
    const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
    if (x > 1 && y > 1) out.overlaps.push(a.e.tagName + " '" + a.e.textContent.slice(0, 30) + "' / " + b.e.tagName + " '" + b.e.textContent.slice(0, 30) + "'");
  }
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

// screenProbe is what firstScreenProbe found.
type screenProbe struct {
	Height   float64
	Outer    string
	Headings []struct {
		Text   string
		Bottom float64
	}
	Overlaps []string
}

// probeFirstScreen opens page with firstScreenProbe in headless Chromium
// in a 1280×800 window and returns what it found.
func probeFirstScreen(t *testing.T, chromium, page string) screenProbe {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(strings.Replace(page, "</body>", firstScreenProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile"),
		"--window-size=1280,800", "--virtual-time-budget=5000", "--dump-dom", "file://" + file}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, err := exec.CommandContext(ctx, chromium, flags...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	m := regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no probe result in the DOM (%d bytes)", len(dom))
	}
	var got screenProbe
	if err := json.Unmarshal([]byte(stdhtml.UnescapeString(string(m[1]))), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestPageFirstScreenInChromium: the demo's page with the verdicts
// stored on its rounds, opened in headless Chromium in a 1280×800 window
// (its viewport is 1280×657: Chromium keeps room for its bars): the
// title and the answers' headings are on the first screen, and no two
// text boxes there overlap.
func TestPageFirstScreenInChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no /usr/bin/chromium (Debian package chromium): the page is not opened in a browser")
	}
	p := demoPage(t)
	verdicts := 0
	for i := range p.Sections {
		for j := range p.Sections[i].Rounds {
			r := &p.Sections[i].Rounds[j]
			if r.Bottleneck = report.Bottleneck(report.BottleneckInput{Round: r}); r.Bottleneck != nil {
				verdicts++
			}
		}
	}
	if verdicts < 4 {
		t.Fatalf("%d rounds with a verdict", verdicts)
	}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	got := probeFirstScreen(t, chromium, b.String())
	t.Logf("viewport %v px; headings %+v", got.Height, got.Headings)
	if got.Outer != "1280x800" || got.Height < 600 || len(got.Headings) != 3 {
		t.Fatalf("probe %+v", got)
	}
	for _, h := range got.Headings {
		if h.Bottom > got.Height {
			t.Errorf("heading %q ends at %v px, below the first screen (%v px)", h.Text, h.Bottom, got.Height)
		}
	}
	for _, o := range got.Overlaps {
		t.Errorf("text boxes overlap on the first screen: %s", o)
	}
	// The probe does see an overlap where there is one.
	bad := probeFirstScreen(t, chromium, `<html><body><p style="position:absolute;top:10px">one</p><p style="position:absolute;top:12px">two</p></body></html>`)
	if len(bad.Overlaps) != 1 || bad.Overlaps[0] != "P 'one' / P 'two'" {
		t.Errorf("overlapping paragraphs: probe found %q", bad.Overlaps)
	}
}
