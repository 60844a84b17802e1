package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/plot"
)

// withInterims asks netperf for an interim result every seconds (global
// -D, demo mode), so that a stall within a run shows; 0 leaves it off.
//
// Similar to: netperf -D 1 -H HOST -t UDP_STREAM ...
func withInterims(o netperf.Options, seconds int) (netperf.Options, error) {
	switch {
	case seconds < 0:
		return o, fmt.Errorf("-interval %d: want 0 (off) or more seconds", seconds)
	case seconds > 0:
		o.Extra = append(o.Extra, "-D", strconv.Itoa(seconds))
	}
	return o, nil
}

// addInterims records the interim results of each run (repeat i is run
// i) in the round as interim_throughput.
func addInterims(round *report.Round, runs []netperfRun) error {
	for i, r := range runs {
		if err := round.AddNetperfInterims(i, r.Result); err != nil {
			return fmt.Errorf("run %d interims: %w", i+1, err)
		}
	}
	return nil
}

// interimFigures is the picture of the interim results of every round
// (interims-throughput.svg), or none when no run printed any (-interval 0,
// a netperf built without demo mode).
func interimFigures(rounds []report.Round) ([]plot.Figure, error) {
	fig, err := plot.Interims(rounds, "throughput")
	if errors.Is(err, report.ErrNoData) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []plot.Figure{fig}, nil
}
