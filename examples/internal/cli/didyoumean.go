package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocekit/rocekit/internal/didyoumean"
)

// OneOf refuses a value of an enumerated flag that is none of known,
// naming them and, for a typo, the one likely meant:
// `-tool "perftset": want one of perftest, netperf (did you mean "perftest"?)`.
func OneOf(flag, v string, known ...string) error {
	for _, k := range known {
		if v == k {
			return nil
		}
	}
	e := bad(flag, v, "one of %s", strings.Join(known, ", ")).(*FlagError)
	e.Suggest = didyoumean.Nearest(v, known)
	return e
}

// unknownFlagPrefix is how the flag package names a flag it has not got.
const unknownFlagPrefix = "flag provided but not defined: -"

// ParseFlags parses args into fs, whatever its error handling, and
// returns the error instead of exiting: an unknown flag says which one
// was likely meant ("flag provided but not defined: -netdve (did you
// mean -netdev?)"; it matches ErrBadFlag). -h prints the usage on fs's
// output and returns flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	out, eh := fs.Output(), fs.ErrorHandling()
	fs.SetOutput(io.Discard) // the flag package's own message and usage: said below instead
	fs.Init(fs.Name(), flag.ContinueOnError)
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Init(fs.Name(), eh)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	name, ok := strings.CutPrefix(err.Error(), unknownFlagPrefix)
	if !ok {
		return BadFlag(err)
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	msg := unknownFlagPrefix + name
	if n := didyoumean.Nearest(name, known); n != "" && n != name {
		msg += " (did you mean -" + n + "?)"
	}
	return Usage(msg)
}

// Parse parses the command line into flag.CommandLine (ParseFlags) and
// exits, naming the program: 0 after -h, 2 on a flag it cannot take
// (with the flag likely meant) or on positional arguments.
func Parse(name string) {
	err := ParseFlags(flag.CommandLine, os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err == nil {
		err = NoArgs(flag.CommandLine)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v (%s -h lists the flags)\n", name, err, name)
		os.Exit(2)
	}
}
