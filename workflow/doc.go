// Package workflow holds the runbooks' steps as library calls: a perftest
// step (repeats of one test between two Sides) and a netperf round, each
// taking options as data, running with one selectable failure policy,
// recording both ends' fingerprints, counters, verdict and findings in the
// round, writing its archive and then appending it to the store. The
// examples are flags plus a sequence of these calls; a test framework
// imports the same steps.
package workflow
