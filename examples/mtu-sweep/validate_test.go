package main

import (
	"testing"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
)

// TestValidate: every bad flag, the step flags' and the sweep's own, is
// refused by validate and by run before anything else (clitest).
func TestValidate(t *testing.T) {
	clitest.CheckStepRefusals(t, goodConfig, func(c *config) *cli.StepFlags { return &c.StepFlags }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.MTUs = "1500,70000" }, Want: `-mtus "1500,70000": 70000 is outside 68–65535`},
		{Set: func(c *config) { c.MTUs = "1500,x" }, Want: `-mtus "1500,x": "x" is not a number`},
		{Set: func(c *config) { c.Size = -1 }, Want: "-s -1: want 1 to 1073741824"},
	}, config.validate, clitest.Quiet(run))
}

func goodConfig(dir string) config {
	return config{StepFlags: clitest.GoodStepFlags(dir), MTUs: "1500,9000", Size: 65536}
}

// TestValidateAllSizes: -s is not read with -a.
func TestValidateAllSizes(t *testing.T) {
	c := goodConfig(t.TempDir())
	c.Size, c.AllSizes = 0, true
	if err := c.validate(); err != nil {
		t.Errorf("-a with -s 0: %v", err)
	}
}
