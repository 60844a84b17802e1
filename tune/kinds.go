package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rocekit/rocekit/irq"
)

// kindDef is everything one kind of change needs, in one place: how its
// target is named and checked, how a value to set and a journaled old
// value are checked, how the live system is read and written, and when a
// value read back holds the one set. Session.Apply, Restore, Recover and
// Verify go through this table only, so a new kind is one file that
// registers its kindDef (kind_txqueuelen.go) and keeps its value in
// Value.Ext.
type kindDef struct {
	// target names the target in messages ("IRQ 27"); nil: Target.String.
	target func(Target) string
	// validTarget checks what of the target becomes a path or a netlink
	// attribute; the namespace is checked for every kind. nil: nothing.
	validTarget func(Target) error
	// validNew checks a value to set (Apply); validOld a journaled old
	// value before it is written back (errNoOld: it is missing). nil:
	// nothing to check.
	validNew func(Target, Value) error
	validOld func(Target, Value) error
	// check looks at the system before anything changes (an IRQ exists,
	// its CPUs are online); nil: reading the target is the check.
	check func(ctx context.Context, sys system, c Change, online func() (irq.CPUList, error)) error
	// restorable refuses a change whose current value could not be set
	// back; nil: any.
	restorable func(t Target, cur Value) error
	// read and write go to the live system.
	read  func(context.Context, *liveSystem, Target) (Value, error)
	write func(context.Context, *liveSystem, Target, Value) error
	// matches reports whether got holds what want sets (Verify, undo).
	matches func(want, got Value) bool
	// narrow keeps, of the old value, what the change touches; nil: all.
	narrow func(old, new Value) Value
	// format says a value in words, for a kind whose value is in Ext;
	// nil: Value.String.
	format func(Value) string
}

// errNoOld is a validOld's answer for a journaled entry without its old
// value.
var errNoOld = errors.New("tune: no old value")

// need is errNoOld unless ok.
func need(ok bool) error {
	if ok {
		return nil
	}
	return errNoOld
}

// register adds a kind to the table; each kind's file calls it from its
// init. A kind registered twice is a programming error.
func register(k Kind, d kindDef) {
	if _, dup := kinds[k]; dup {
		panic("tune: kind " + string(k) + " registered twice")
	}
	kinds[k] = &d
}

// def is the kind's entry; nil for a kind not in the table.
func (k Kind) def() *kindDef { return kinds[k] }

// Kinds lists the kinds of change this build knows, sorted: what a
// journal may hold.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (k Kind) target(t Target) string {
	if d := k.def(); d != nil && d.target != nil {
		return d.target(t)
	}
	return t.String()
}

// show says v in words as a value of kind k.
func (k Kind) show(v Value) string {
	if d := k.def(); d != nil && d.format != nil && v.Ext != nil {
		return d.format(v)
	}
	return v.String()
}

// validateTarget checks the names and numbers of a target: what becomes a
// path (/run/netns/NS, /proc/irq/N, /sys/devices/system/cpu/cpuN) or a
// netlink attribute.
func validateTarget(k Kind, t Target) error {
	if err := ValidateNetns(t.Netns); err != nil {
		return err
	}
	d := k.def()
	if d == nil {
		return invalid("kind", string(k), "unknown kind of change")
	}
	if d.validTarget != nil {
		return d.validTarget(t)
	}
	return nil
}

// validate checks a change's target and new value without touching the
// system.
func (c Change) validate() error {
	if err := validateTarget(c.Kind, c.Target); err != nil {
		return err
	}
	if d := c.Kind.def(); d.validNew != nil {
		return d.validNew(c.Target, c.New)
	}
	return nil
}

// validateUndo checks a journaled entry before its old value is written
// back: the journal file is input too. Old values came from the kernel, so
// only what names a file or a netlink object is checked, and that the old
// value is there.
func (e Entry) validateUndo() error {
	if err := validateTarget(e.Kind, e.Target); err != nil {
		return err
	}
	d := e.Kind.def()
	if d.validOld == nil {
		return nil
	}
	err := d.validOld(e.Target, e.Old)
	if errors.Is(err, errNoOld) {
		return invalid(string(e.Kind), e.Kind.target(e.Target), "journal entry #%d has no old value", e.Seq)
	}
	return err
}

// narrowOld keeps, of the value read before a change, what the change
// touches (the old states of the features it sets).
func narrowOld(k Kind, old, new Value) Value {
	if d := k.def(); d != nil && d.narrow != nil {
		return d.narrow(old, new)
	}
	return old
}

// matches reports whether got holds what want sets: for ring and channels
// the counts want names, for the others the whole value.
func matches(k Kind, want, got Value) bool {
	d := k.def()
	return d != nil && d.matches(want, got)
}

func (s *liveSystem) read(ctx context.Context, k Kind, t Target) (Value, error) {
	d := k.def()
	if d == nil {
		return Value{}, fmt.Errorf("tune: unknown kind %q", k)
	}
	return d.read(ctx, s, t)
}

func (s *liveSystem) write(ctx context.Context, k Kind, t Target, v Value) error {
	d := k.def()
	if d == nil {
		return fmt.Errorf("tune: unknown kind %q", k)
	}
	return d.write(ctx, s, t, v)
}

// extValue is a Value holding x as Ext, the value of a kind registered in
// a file of its own.
func extValue(x any) Value {
	b, err := json.Marshal(x)
	if err != nil {
		panic(err) // the kinds' value types always marshal
	}
	return Value{Ext: b}
}

// extOf decodes v's Ext into a T; false when v has none or it does not
// decode (a journal edited by hand).
func extOf[T any](v Value) (T, bool) {
	var x T
	if v.Ext == nil || json.Unmarshal(v.Ext, &x) != nil {
		return x, false
	}
	return x, true
}
