package capture

import "regexp"

// Cases returns the table of cases in the order [Run] runs them. The order matters: files of
// the netperf NICs are read before PhaseNetns moves the NICs into nsA and nsB. nics says what
// the netperf NICs are, which decides whether some ethtool queries are expected to fail.
func Cases(nics NICKind) []Spec {
	var specs []Spec
	specs = append(specs, kernelFileSpecs()...)
	specs = append(specs, rdmaSpecs()...)
	specs = append(specs, perftestSpecs()...)
	specs = append(specs, ethtoolSpecs(nics)...)
	specs = append(specs, netperfSpecs()...)
	specs = append(specs, deltaSpecs()...)
	return specs
}

// Select returns the specs whose id matches only, in table order; a nil only selects all.
func Select(specs []Spec, only *regexp.Regexp) []Spec {
	if only == nil {
		return specs
	}
	var out []Spec
	for _, s := range specs {
		if only.MatchString(s.ID()) {
			out = append(out, s)
		}
	}
	return out
}
