package report

// FindingGroup is the findings of one cause: the same rule at the same
// severity, raised once per host, direction or round. Reports list a
// group once, with where it applies, instead of once per occurrence
// (eight "socket buffer clamped" lines for one sysctl on two hosts).
type FindingGroup struct {
	// Finding is the first occurrence; its Action is the group's.
	Finding Finding `json:"finding"`
	// Also are the other occurrences, in order: their summaries say
	// which host, direction or round each one is.
	Also []Finding `json:"also,omitempty"`
}

// Count is how many findings the group holds.
func (g FindingGroup) Count() int { return 1 + len(g.Also) }

// GroupFindings folds findings of one rule and severity into one group,
// in the order each group first occurs.
func GroupFindings(fs []Finding) []FindingGroup {
	var gs []FindingGroup
	at := map[[2]string]int{}
	for _, f := range fs {
		k := [2]string{f.Rule, string(f.Severity)}
		if i, ok := at[k]; ok {
			gs[i].Also = append(gs[i].Also, f)
			continue
		}
		at[k] = len(gs)
		gs = append(gs, FindingGroup{Finding: f})
	}
	return gs
}
