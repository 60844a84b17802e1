package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// ErrPreflight is matched by the error of a step whose soft-RoCE
// preflight found a critical fault: a missing tool, a firewall rule on
// perftest's port or on RoCE v2, a port not ACTIVE, an address the other
// end cannot reach. The pair would hang at "Waiting for client" or fail
// with a completion error; the step refuses it instead.
var ErrPreflight = errors.New("workflow: soft-RoCE preflight failed")

// RDMAPreflight is a PerftestStep.Preflight that runs the soft-RoCE
// runbook's troubleshooting on both ends (runbook.Sides.PreflightRDMA,
// after PrepareRXE) for the tools the step runs on port (0: perftest's
// 18515). Its findings open the round's; a critical one stops the step
// with ErrPreflight, naming each.
func RDMAPreflight(port int, tools ...string) func(context.Context, *runbook.Sides) ([]report.Finding, error) {
	return func(ctx context.Context, sides *runbook.Sides) ([]report.Finding, error) {
		_, fs, err := sides.PreflightRDMA(ctx, runbook.RDMAAsk{Near: sides.NearRXE, Far: sides.FarRXE, Port: port, Tools: tools})
		if err != nil {
			return fs, err
		}
		var crit []string
		for _, f := range fs {
			if f.Severity == report.SeverityCritical {
				crit = append(crit, f.Summary+" ("+f.Action+")")
			}
		}
		if len(crit) > 0 {
			return fs, fmt.Errorf("%w: %s", ErrPreflight, strings.Join(crit, "; "))
		}
		return fs, nil
	}
}

// RDMAPreflightWhen is RDMAPreflight when cond holds and no preflight
// otherwise: a program that runs several steps asks for it on the first.
func RDMAPreflightWhen(cond bool, port int, tools ...string) func(context.Context, *runbook.Sides) ([]report.Finding, error) {
	if !cond {
		return nil
	}
	return RDMAPreflight(port, tools...)
}
