// Package junit writes JUnit XML, the test report format CI systems
// (Jenkins' xunit and junit plugins, GitLab, GitHub Actions reporters) and
// in-house frameworks read: a testsuite per workflow, matrix or gate, a
// testcase per pair or check, and a failure that carries the evidence.
// The output validates against the junit-10.xsd that Jenkins' xunit
// plugin checks with.
//
//	s := junit.Suite{Name: "fleet matrix", Cases: []junit.Case{
//		{Name: "hosta→hostb", Class: "rocekit.fleet", Seconds: 12.5},
//		{Name: "hosta→hostc", Class: "rocekit.fleet", Failure: &junit.Failure{
//			Type: "below-line-rate", Message: "41.2 of 90.0 Gbit/s", Text: "evidence ..."}},
//	}}
//	err := junit.Write(w, junit.Suites{Name: "rocekit", Suites: []junit.Suite{s}})
package junit
