package workflow_test

import (
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// runbookSides are fake Sides with their two FakeSides at hand.
type runbookSides struct {
	*runbook.Sides
	far, near *workflow.FakeSide
}
