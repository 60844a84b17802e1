// Package tune applies tuning changes so that every system is left as it was
// found: each change (MTU, link up/down, ring, channels, offload features,
// rxe link, IRQ affinity, CPU governor, sysctls such as net.core.rmem_max,
// irqbalance paused, txqueuelen) is written to a journal file and fsynced before it
// is made, with the value it replaces, and is made through the package that
// owns it (nic, rxe, irq). Restore undoes the changes in reverse order; after
// a crash (the process was killed with SIGKILL mid-run), Recover does the same
// from the journal file alone.
//
//	s, err := tune.Begin("/var/tmp/round-c.journal", tune.Options{})
//	if err != nil {
//		return err // errors.Is(err, tune.ErrPending): tune.Recover it first
//	}
//	defer s.Close()
//	defer s.Restore(ctx) // newest first; idempotent
//	fs, _ := irq.DefaultRoot()
//	dev, _ := fs.Netdev("eth0")
//	plan, _ := fs.ByNode(dev, -1)
//	changes := append([]tune.Change{
//		tune.MTU("", "eth0", 9000),      // ip link set eth0 mtu 9000
//		tune.AddRXE("", "rxe0", "eth0"), // rdma link add rxe0 type rxe netdev eth0
//		tune.Governor(0, "performance"), // cpupower -c 0 frequency-set -g performance
//	}, tune.Spread(plan)...)            // set_irq_affinity_bynode.sh
//	if _, err := s.Apply(ctx, changes...); err != nil {
//		return err // invalid input changes nothing (tune.ErrInvalidInput)
//	}
//	drift, _ := s.Verify(ctx) // irqbalance rewrote an affinity, a driver clamped a ring
//
// and, in the next run or a cleanup job, after a crash:
//
//	rep, err := tune.Recover(ctx, "/var/tmp/round-c.journal")
//
// The journal is JSON lines: a header (format version, PID, the /proc and /sys
// roots), then per change a "change" record holding its Entry (kind, target,
// old and new value), a "done" mark once it was made and a "restored" mark
// once it was undone. A torn last line (killed mid-write) is skipped; a
// change journaled but not marked done is undone all the same, by reading the
// current value and writing the old one back when they differ. A change
// whose undo fails is reported as an *UndoError saying what is left, and the
// others are still undone.
//
// One writer at a time: a session holds an exclusive flock on its journal
// until Close (or until its process dies, which drops the lock), so a second
// Begin or a Recover on a journal in use fails with a *LockedError
// (ErrLocked) naming the writer's PID instead of undoing a live run's
// changes. A file that is not a journal, or a journal of another format
// version, is refused (ErrJournal) and never cut or removed; a journal
// without changes is removed by Recover.
//
// Only a journal of our own is replayed: Begin and Recover open it without
// following a link, and take it only when it is a regular file owned by the
// running euid that group and others cannot write, in a folder owned by the
// euid or root that they cannot write either (unless it is sticky, like
// /tmp). Anything else is a *JournalError whose cause names the file, its
// owner and mode (errors.Is(err, fs.ErrPermission)); nothing is replayed.
// Changes are undone by sequence number, newest first, whatever the order
// of the lines; a number missing or given twice is an error naming it. A
// sysctl change takes net.* keys only (kernel.core_pattern, a program the
// kernel runs as root, is refused) and a value of one line without control
// characters, when it is made and when it is undone.
//
// Each kind of change is one entry of a table (kinds.go): how its target
// and values are checked, read, written and compared. Apply, Restore,
// Recover and Verify have no switch of their own, so a new kind is one
// file (kind_txqueuelen.go) that registers its entry and keeps its value
// in Value.Ext; journals written before it still replay.
//
// Every input that reaches the kernel or the file system is checked before
// anything changes (ValidateNetdev, ValidateIRQ, ValidateCPUs against the
// online CPUs, ValidateGIDIndex, ValidatePath, ...); a batch given to Apply is
// refused whole.
package tune
