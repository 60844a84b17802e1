package main

import (
	"testing"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/internal/labtest"
)

// TestValidate: every bad flag, the step flags' and the scaling's own,
// is refused by validate and by run before anything else (clitest).
func TestValidate(t *testing.T) {
	clitest.CheckStepRefusals(t, goodConfig, func(c *config) *cli.StepFlags { return &c.StepFlags }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: want 68 to 65535"},
		{Set: func(c *config) { c.QPs = "1,0" }, Want: `-qps "1,0": 0 is outside`},
	}, config.validate, clitest.Quiet(run))
}

func goodConfig(dir string) config {
	return config{StepFlags: clitest.GoodStepFlags(dir), MTU: 9000, QPs: "1,2,4"}
}
