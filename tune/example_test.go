package tune_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/tune"
)

// Round C of the NIC runbook: MTU 9000, the NIC's IRQs spread over its
// CPUs, governor performance; then back to what was there.
func Example() {
	ctx := context.Background()
	s, err := tune.Begin("/var/tmp/round-c.journal", tune.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fs, _ := irq.DefaultRoot()
	dev, _ := fs.Netdev("eth0")
	plan, _ := fs.ByNode(dev, -1)
	changes := append([]tune.Change{tune.MTU("", "eth0", 9000), tune.Governor(0, "performance")}, tune.Spread(plan)...)
	if _, err := s.Apply(ctx, changes...); err != nil {
		fmt.Println(err)
	}
	drift, _ := s.Verify(ctx)
	for _, d := range drift {
		fmt.Println(d) // #3 affinity IRQ 27: set cpus 1, now cpus 0-3
	}
	// ... run netperf ...
	if _, err := s.Restore(ctx); errors.Is(err, tune.ErrUndo) {
		fmt.Println(err) // what could not be undone, and what it was left as
	}
}

// Invalid input is refused before anything is changed.
func ExampleValidateNetdev() {
	for _, name := range []string{"eth0", "../eth0", "a-very-long-name0", ""} {
		fmt.Println(tune.ValidateNetdev(name))
	}
	// Output:
	// <nil>
	// tune: invalid netdev "../eth0": contains '/'
	// tune: invalid netdev "a-very-long-name0": longer than 15 bytes
	// tune: invalid netdev "": empty
}
