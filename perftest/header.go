package perftest

import (
	"strconv"
	"strings"
)

// Header is the block perftest prints before its results
// (ctx_print_test_info), keyed by name so that the lines a version, side
// or verb adds or drops do not matter:
//
//	                   Send BW Test
//	Dual-port       : OFF		Device         : rxe0
//	Number of qps   : 1		Transport type : IB
//	Connection type : RC		Using SRQ      : OFF
//	PCIe relax order: ON		Lock-free      : OFF
//	ibv_wr* API     : OFF		Using DDP      : OFF
//	TX depth        : 128
//	CQ Moderation   : 1
//	Mtu             : 1024[B]
//	Link type       : Ethernet
//	GID index       : 1
//	Max inline data : 0[B]
//	rdma_cm QPs	 : OFF
//	Data ex. method : Ethernet
//
// A line holds one or two pairs; the second is found by its key, so
// the TABs may have become spaces (expand(1), a terminal, a web page).
//
// Integer fields whose line is absent are 0, except those where 0 is a
// printed value, which are -1 (GIDIndex, GIDIndex2, MaxInlineBytes,
// OutstandingReads, TOS, NUMANode). String fields are "" when absent.
type Header struct {
	// From the title line ("Atomic FETCH_AND_ADD Bidirectional BW Test").
	Verb          string // "Send", "RDMA_Write", "RDMA_Read", "Atomic", "RDMA_Write_imm", "Send_imm"
	AtomicOp      string // "CMP_AND_SWAP" or "FETCH_AND_ADD" for Atomic
	Bidirectional bool   // -b
	PostList      bool   // "Post List" in the title (-l > 1)
	Multicast     bool   // -g
	Forwarding    bool   // raw Ethernet MAC forwarding

	Device          string // "rxe0" (-d)
	DualPort        bool   // -O
	QPs             int    // Number of qps (-q)
	Transport       string // "IB", "IW", "Unknown"
	Connection      string // "RC", "UC", "UD", "RawEth", "XRC", "DC", "SRD" (-c)
	SRQ             bool   // Using SRQ
	PCIeRelaxOrder  string // "ON", "OFF" or "Unsupported"
	LockFree        string // "ON", "OFF" or "Unsupported" (24.10+)
	WRAPI           bool   // ibv_wr* API
	DDP             bool   // Using DDP (25.01 to 25.07)
	EnhancedReorder bool   // Using Enhanced Reorder (25.10+)
	TXDepth         int    // client, or both sides with -b
	RXDepth         int    // send-type server, or both sides with -b
	PostListLen     int    // Post List (-l)
	RecvPostList    int    // Recv Post List
	CQModeration    int    // BW tests
	CQEPollBatch    string // "Dynamic" or a number (25.04+)
	MTU             int    // bytes, the minimum of both sides
	LinkType        string // "IB", "Ethernet", "Unknown"
	BufferSize      int    // bytes, MAC forwarding
	GIDIndex        int    // -1 when absent (IB without -x)
	GIDIndex2       int    // second port with -O; -1 when absent
	// MaxInlineBytes is "Max inline data" (send, write); -1 when absent.
	MaxInlineBytes int
	// OutstandingReads is "Outstand reads" (read, atomic); -1 when absent.
	OutstandingReads int
	RDMACM           bool   // rdma_cm QPs (-R)
	DataExchange     string // "Ethernet" (TCP socket) or "rdma_cm" (-z, -R)
	TOS              int    // -1 when absent
	ROCmMemory       bool   // Use ROCm memory
	MUSAMemory       bool   // Use MUSA memory
	NUMANode         int    // 26.04+; -1 when absent
	Events           string // " Test with events. Using mlx5_0_comp0" (-e), after "Using "

	// BWUnit is the unit of the BW table (UnitUnknown for latency).
	BWUnit BWUnit
	// BWUnitLabel is the unit as printed: "MB/sec" before 24.07,
	// "MiB/sec", "Gb/sec".
	BWUnitLabel string

	// Local and Remote are the address lines, one per QP.
	Local, Remote []Address

	// Unknown keeps the "key : value" pairs the parser does not know
	// (DCS streams, AES-XTS, and whatever a new version adds), and known
	// keys whose value did not parse.
	Unknown []Field
}

// Field is a "key : value" pair of the header, trimmed.
type Field struct {
	Key   string `json:"key"`   // "DCS num streams"
	Value string `json:"value"` // "4"
}

// newHeader returns a Header with the "absent" markers set.
func newHeader() Header {
	return Header{GIDIndex: -1, GIDIndex2: -1, MaxInlineBytes: -1, OutstandingReads: -1, TOS: -1, NUMANode: -1}
}

// canonKey folds a header key to lower-case letters and digits, so that
// the text keys ("Dual-port", "ibv_wr* API", "Data ex. method") and the
// JSON keys ("Dual_port", "ibv_wr_API", "Data_ex_method") meet.
func canonKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// set stores one header pair; it reports false for keys it does not know
// and values that do not parse (the caller keeps those in Unknown).
func (h *Header) set(key, value string) bool {
	k := canonKey(key)
	if dst := h.textField(k); dst != nil {
		*dst = value
		return true
	}
	if dst := h.numberField(k); dst != nil {
		return setHeaderNumber(dst, value)
	}
	if dst := h.onOffField(k); dst != nil {
		return setOnOff(dst, value)
	}
	return false
}

// setHeaderNumber sets *dst to a number as perftest prints it: "1024[B]";
// perftest 1.x printed "2048B".
func setHeaderNumber(dst *int, value string) bool {
	v := strings.TrimSuffix(strings.TrimSuffix(value, "[B]"), "B")
	n, err := strconv.Atoi(v)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

// setOnOff sets *dst from "ON" or "OFF", in any case.
func setOnOff(dst *bool, value string) bool {
	switch strings.ToUpper(value) {
	case "ON":
		*dst = true
	case "OFF":
		*dst = false
	default:
		return false
	}
	return true
}

// textField returns the field of a text header key (canonKey), or nil.
func (h *Header) textField(key string) *string {
	switch key {
	case "device":
		return &h.Device
	case "transporttype":
		return &h.Transport
	case "connectiontype":
		return &h.Connection
	case "pcierelaxorder":
		return &h.PCIeRelaxOrder
	case "lockfree":
		return &h.LockFree
	case "cqepollbatch":
		return &h.CQEPollBatch
	case "linktype":
		return &h.LinkType
	case "dataexmethod":
		return &h.DataExchange
	}
	return nil
}

// numberField returns the field of a numeric header key (canonKey), or nil.
func (h *Header) numberField(key string) *int {
	switch key {
	case "numberofqps":
		return &h.QPs
	case "txdepth":
		return &h.TXDepth
	case "rxdepth":
		return &h.RXDepth
	case "postlist":
		return &h.PostListLen
	case "recvpostlist":
		return &h.RecvPostList
	case "cqmoderation":
		return &h.CQModeration
	case "mtu":
		return &h.MTU
	case "buffersize":
		return &h.BufferSize
	case "gidindex":
		return &h.GIDIndex
	case "gidindex2":
		return &h.GIDIndex2
	case "maxinlinedata":
		return &h.MaxInlineBytes
	case "outstandreads":
		return &h.OutstandingReads
	case "tos":
		return &h.TOS
	case "numanode":
		return &h.NUMANode
	}
	return nil
}

// onOffField returns the field of an ON/OFF header key (canonKey), or nil.
func (h *Header) onOffField(key string) *bool {
	switch key {
	case "dualport":
		return &h.DualPort
	case "usingsrq":
		return &h.SRQ
	case "ibvwrapi":
		return &h.WRAPI
	case "usingddp":
		return &h.DDP
	case "usingenhancedreorder":
		return &h.EnhancedReorder
	case "rdmacmqps":
		return &h.RDMACM
	case "userocmmemory":
		return &h.ROCmMemory
	case "usemusamemory":
		return &h.MUSAMemory
	}
	return nil
}

// addPairs parses a header line holding one or more "key : value"
// pairs, whatever separates them: " Dual-port       : OFF\t\tDevice         : rxe0"
// as printed, " Dual-port       : OFF          Device         : irdma1" after a
// terminal copy or expand(1), "Dual-port : OFF Device : mlx5_1" from a web
// page, " rdma_cm QPs\t : OFF", " Data ex. method : rdma_cm \tTOS    : 5".
// It reports false when the line holds no pair.
func (h *Header) addPairs(line string) bool {
	seps := pairSeparators(line)
	if len(seps) == 0 {
		return false
	}
	key := strings.TrimSpace(line[:seps[0]])
	for i, sep := range seps {
		end := len(line)
		if i+1 < len(seps) {
			end = seps[i+1]
		}
		value, next := line[sep+1:end], ""
		if i+1 < len(seps) {
			value, next = splitValueKey(value)
		}
		f := Field{Key: key, Value: strings.TrimSpace(value)}
		if f.Key != "" && !h.set(f.Key, f.Value) {
			h.Unknown = append(h.Unknown, f)
		}
		key = next
	}
	return true
}

// pairSeparators returns the positions of the colons that end a key: a
// colon followed by a blank or the end of the line, with a key before it
// ("EC:0D:9A" and "0x1f:" in values are not separators).
func pairSeparators(line string) []int {
	var seps []int
	for i := 0; i < len(line); i++ {
		if line[i] != ':' || i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
			continue
		}
		before := line[:i]
		if len(seps) > 0 {
			before = line[seps[len(seps)-1]+1 : i]
		}
		if strings.TrimSpace(before) == "" {
			continue
		}
		seps = append(seps, i)
	}
	return seps
}

// splitValueKey splits the text between two separators into the value of
// the first pair and the key of the next. The key is, in order: the
// longest known key (Header.set) that ends the text after a blank; else
// what follows the last TAB; else what follows the last run of two or
// more spaces; else the last word. So a value never swallows the next
// key, and a value with spaces ("Ethernet", "rdma_cm") stays whole.
func splitValueKey(s string) (value, key string) {
	s = strings.TrimRight(s, " \t")
	best := -1
	for i := len(s) - 1; i > 0; i-- {
		if (s[i-1] == ' ' || s[i-1] == '\t') && s[i] != ' ' && s[i] != '\t' && knownKey(s[i:]) {
			best = i
		}
	}
	if best < 0 {
		best = strings.LastIndexByte(s, '\t') + 1
	}
	if best <= 0 {
		if j := strings.LastIndex(s, "  "); j >= 0 {
			best = j + 2
		}
	}
	if best <= 0 {
		best = strings.LastIndexAny(s, " \t") + 1
	}
	if best <= 0 {
		return "", s
	}
	return s[:best], strings.TrimSpace(s[best:])
}

// knownKey reports whether k is a header key that Header.set knows.
func knownKey(k string) bool { return headerKeys[canonKey(k)] }

// headerKeys are the keys Header.set knows, folded by canonKey.
var headerKeys = map[string]bool{
	"dualport": true, "device": true, "numberofqps": true, "transporttype": true, "connectiontype": true,
	"usingsrq": true, "pcierelaxorder": true, "lockfree": true, "ibvwrapi": true, "usingddp": true,
	"usingenhancedreorder": true, "txdepth": true, "rxdepth": true, "postlist": true, "recvpostlist": true,
	"cqmoderation": true, "cqepollbatch": true, "mtu": true, "linktype": true, "buffersize": true,
	"gidindex": true, "gidindex2": true, "maxinlinedata": true, "outstandreads": true, "rdmacmqps": true,
	"dataexmethod": true, "tos": true, "userocmmemory": true, "usemusamemory": true, "numanode": true,
}

// setTitle parses the title line of a test into h: "Send BW Test",
// "Atomic FETCH_AND_ADD Latency Test", "RDMA_Write Bidirectional BW Test".
// It returns the kind (ResultBW or ResultLat), and false when the line is
// not a title.
func (h *Header) setTitle(title string) (ResultKind, bool) {
	words := strings.Fields(title)
	if len(words) < 3 || words[len(words)-1] != "Test" {
		return ResultUnknown, false
	}
	kind := ResultUnknown
	var verb, op string
	var bidir, postList, mcast, fwd bool
	for i, w := range words[:len(words)-1] {
		switch {
		case i == 0:
			verb = w
		case i == 1 && verb == "Atomic" && (w == "CMP_AND_SWAP" || w == "FETCH_AND_ADD"):
			op = w
		case w == "BW":
			kind = ResultBW
		case w == "Latency":
			kind = ResultLat
		case w == "Bidirectional":
			bidir = true
		case w == "Post" || w == "List":
			postList = true
		case w == "Multicast":
			mcast = true
		case w == "forwarding":
			fwd = true
		default:
			return ResultUnknown, false
		}
	}
	if kind == ResultUnknown || strings.ContainsAny(verb, ":=") || verb[0] < 'A' || verb[0] > 'z' {
		return ResultUnknown, false
	}
	h.Verb, h.AtomicOp = verb, op
	h.Bidirectional, h.PostList, h.Multicast, h.Forwarding = bidir, postList, mcast, fwd
	return kind, true
}
