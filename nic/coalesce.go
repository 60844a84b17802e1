package nic

// Coalesce is the interrupt coalescing a UDP or RDMA test tunes: adaptive
// moderation, and the microseconds and frames an interrupt waits for
// (`ethtool -c`).
type Coalesce struct {
	AdaptiveRx bool   `json:"adaptive_rx"`
	AdaptiveTx bool   `json:"adaptive_tx"`
	RxUsecs    uint32 `json:"rx_usecs"`
	RxFrames   uint32 `json:"rx_frames"`
	TxUsecs    uint32 `json:"tx_usecs"`
	TxFrames   uint32 `json:"tx_frames"`
}

// CoalesceUpdate changes the fields that are set (`ethtool -C`).
type CoalesceUpdate struct {
	AdaptiveRx *bool   `json:"adaptive_rx,omitempty"`
	AdaptiveTx *bool   `json:"adaptive_tx,omitempty"`
	RxUsecs    *uint32 `json:"rx_usecs,omitempty"`
	RxFrames   *uint32 `json:"rx_frames,omitempty"`
	TxUsecs    *uint32 `json:"tx_usecs,omitempty"`
	TxFrames   *uint32 `json:"tx_frames,omitempty"`
}

// Empty reports whether the update changes nothing.
func (u CoalesceUpdate) Empty() bool {
	return u.AdaptiveRx == nil && u.AdaptiveTx == nil && u.RxUsecs == nil && u.RxFrames == nil && u.TxUsecs == nil && u.TxFrames == nil
}

func (u CoalesceUpdate) apply(c Coalesce) Coalesce {
	set(&c.AdaptiveRx, u.AdaptiveRx)
	set(&c.AdaptiveTx, u.AdaptiveTx)
	set(&c.RxUsecs, u.RxUsecs)
	set(&c.RxFrames, u.RxFrames)
	set(&c.TxUsecs, u.TxUsecs)
	set(&c.TxFrames, u.TxFrames)
	return c
}

// Update is the update that sets every field to c's value: what restores c.
func (c Coalesce) Update() CoalesceUpdate {
	return CoalesceUpdate{AdaptiveRx: &c.AdaptiveRx, AdaptiveTx: &c.AdaptiveTx, RxUsecs: &c.RxUsecs,
		RxFrames: &c.RxFrames, TxUsecs: &c.TxUsecs, TxFrames: &c.TxFrames}
}

// Matches reports whether c holds every field u sets.
func (u CoalesceUpdate) Matches(c Coalesce) bool { return u.apply(c) == c }
