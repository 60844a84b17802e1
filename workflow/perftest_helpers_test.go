package workflow_test

import (
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/runbook"
)

// runbookSides are fake Sides with their two FakeSides at hand.
type runbookSides struct {
	*runbook.Sides
	far, near *rocekittest.FakeSide
}
