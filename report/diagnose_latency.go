package report

// CheckJitter reports, per message size, latency whose t_max is more than
// MaxJitterRatio times t_typical (the median of the samples), as perftest
// latency rounds have them (medians over repeats).
func CheckJitter(r Round, th Thresholds) []Finding {
	th = th.WithDefaults()
	var out []Finding
	for _, mx := range r.Metrics {
		if mx.Name != MetricTMax {
			continue
		}
		key := MetricTTypical
		for _, l := range mx.Labels {
			key += "/" + l.Key + "=" + l.Value
		}
		ty, ok := r.Metric(key)
		if !ok {
			continue
		}
		tmax, ttyp := median(mx), median(ty)
		if ttyp <= 0 || tmax/ttyp <= th.MaxJitterRatio {
			continue
		}
		evs := []Evidence{ev(MetricTMax, tmax, mx.Unit), ev(MetricTTypical, ttyp, ty.Unit), ev("ratio", tmax/ttyp, "ratio")}
		if p, ok := r.Metric(MetricP999 + key[len(MetricTTypical):]); ok {
			evs = append(evs, ev(MetricP999, median(p), p.Unit))
		}
		out = append(out, Finding{Rule: RuleJitter, Severity: SeverityWarning,
			Summary:  sprintf("%s: t_max %.4g us is %.0f× t_typical %.4g us: latency is jittery", labelString(mx.Labels), tmax, tmax/ttyp, ttyp),
			Evidence: evs,
			Action:   "pin the test and the NIC's IRQs to NUMA-local cores (taskset, IRQ affinity), set the governor to performance, disable deep C-states, and look at the p99/p99.9 percentiles rather than t_max"})
	}
	return out
}
