// Package firewall reads a host's packet filter as nft and iptables-save
// print it and says whether it stops a TCP or UDP port: the runbook's
// "systemctl status firewalld on both hosts", where a firewall in the way
// shows as netperf failing to connect or as abnormally low UDP results.
//
//	rs, err := firewall.ParseNft(strings.NewReader(nftListRuleset))
//	for _, b := range rs.Blocks("tcp", 12865) { // netserver's control port
//		fmt.Println(b) // "inet filter input: tcp dport 12865 drop (line 5)"
//	}
//
// The reading is conservative: a rule with conditions the package cannot
// judge (a source address, an interface, a named set) is a possible
// block, not a certain one, and a conditional accept does not count as
// letting the port through.
package firewall
