package capture

import (
	"errors"
	"io"
)

// nicKind tells the case table what the netperf NICs are.
func (o Options) nicKind() NICKind {
	if o.VethForNetperf {
		return NICVeth
	}
	return NICVirtio
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.NICA == "" {
		o.NICA = "eth0"
	}
	if o.NICB == "" {
		o.NICB = "eth1"
	}
	if o.TimeoutScale <= 0 {
		o.TimeoutScale = 1
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.OutDir == "":
		return errors.New("capture: no output directory")
	case o.Suite == "":
		return errors.New("capture: no suite name")
	case o.NICA == o.NICB:
		return errors.New("capture: the two netperf NICs must differ")
	}
	return nil
}
