// Package page writes one self-contained HTML report of rocekit rounds:
// the findings first, then the rounds side by side, the pictures
// (report/plot) inline as SVG, and the run's Markdown report as HTML. It
// uses no scripts, no external files and no network, so it can be opened
// in any browser or attached to a ticket as one file.
//
//	rounds, _, _ := report.OpenStore("rounds.jsonl").Load()
//	sec := page.FromRounds("mtu-sweep", rounds)
//	f, _ := os.Create("report.html")
//	defer f.Close()
//	page.Write(f, page.Page{Title: "MTU sweep", Sections: []page.Section{sec}})
package page
