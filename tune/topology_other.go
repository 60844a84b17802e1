//go:build !linux

package tune

import "context"

func readTopology(context.Context, Kind, Target) (Value, error) { return Value{}, errNotLinux }

func writeTopology(context.Context, Kind, Target, Value) error { return errNotLinux }
