package rxe

import (
	"context"
	"fmt"
	"time"
)

// pollInterval is how often WaitActive and WaitGID look again.
const pollInterval = 50 * time.Millisecond

// WaitGID polls a port's GID table until an entry satisfies match and
// returns it. The kernel fills the table asynchronously after a link is
// added or an address is set, so use it before SelectGID. It gives up when
// ctx is done, saying how many entries the table had.
//
// Similar to: until show_gids rxe0 | grep -q 198.18.20.1; do sleep 1; done
func (r Root) WaitGID(ctx context.Context, device string, port int, match func(GIDEntry) bool) (GIDEntry, error) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		table, err := r.GIDTable(device, port)
		if err != nil {
			return GIDEntry{}, err
		}
		for _, e := range table.Entries {
			if match(e) {
				return e, nil
			}
		}
		select {
		case <-ctx.Done():
			return GIDEntry{}, &Error{Op: "wait GID", Name: fmt.Sprintf("%s/%d", device, port),
				Err: fmt.Errorf("%w; the table has %d entries, none matches", ctx.Err(), len(table.Entries))}
		case <-t.C:
		}
	}
}
