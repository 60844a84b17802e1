// Package cli is what only the example mains share: the flags that place
// the two ends of a run (-netdev, -peer, -peer-netns, -peer-netdev,
// -peer-agent, -identity, -known-hosts, -journal, -timeout,
// -ssh-timeout) and their Open into runbook.Sides, restoring the journals
// an earlier run left first, and OpenRun, the frame of a run around it; StepFlags, the flags of the examples that
// run ib_send_bw steps (-rxe, -count, -n, -qp-timeout, -store, -out); Main and Context (Ctrl-C cancels with
// ErrInterrupted so that deferred restores run, a second one exits);
// ParseList for "-mtus 1500,9000"; and the
// writers of -out (WriteFile, SaveRound, PairFiles, KeepFailedPair: thin
// wrappers over package workflow's, whose RunPerftest the soft-RoCE
// examples call) with the checks that run before anything changes
// (CheckPaths); and the flag
// checks (Flags.Validate, AtLeast, MTU, Port, Ratio, Netdev, Governor,
// OneOf, ...) that each example's validate step runs first, before Open,
// each refusal a *FlagError naming the flag and its range (Main exits 2);
// a typo of an enumerated value (OneOf) or of a flag's name (Parse,
// ParseFlags) says "did you mean" the one likely meant.
//
// A framework of its own uses package runbook directly, without flags.
//
// An example main:
//
//	type config struct {
//		cli.Flags
//		Out, Store string
//	}
//
//	func main() {
//		var c config
//		c.Register(flag.CommandLine)
//		flag.StringVar(&c.Out, "out", "example-out", "folder of the outputs")
//		flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store")
//		cli.Parse("example")
//		cli.Main("example", c.Timeout, func(ctx context.Context) error {
//			// Validate (and the example's own flags) before anything is
//			// touched; the sides restored whatever the body returns.
//			return c.OpenRun(ctx, c.Validate, c.Out, c.Store, os.Stderr, func(sides *runbook.Sides) error {
//				prog := progress.New(os.Stderr, 4)
//				err := sides.PrepareRXE(ctx, "rxe0", 9000, prog) // sides.NearRXE, sides.FarRXE
//				...
//			})
//		})
//	}
package cli
