#!/bin/sh
# Captures `nft list ruleset` and `iptables-save` from rulesets applied in a
# throwaway network namespace (as root, with Debian's nftables and iptables
# packages). The outputs are what the tools printed, byte for byte.
set -eu
ns=fwcapture-$$
ip netns add $ns
trap 'ip netns del $ns' EXIT
run() { ip netns exec $ns "$@"; }
save() { run nft list ruleset > "$1.nft"; run iptables-save > "$1.iptables-save" 2>/dev/null || true; run nft flush ruleset; }

# 1. nft: netserver's control port dropped, a UDP range rejected.
run nft -f - <<'R'
table inet filter {
	chain input {
		type filter hook input priority 0; policy accept;
		ct state established,related accept
		tcp dport 12865 drop
		udp dport 5000-6000 reject
		ip saddr 198.18.0.0/15 tcp dport { 22, 18515 } accept
	}
}
R
save nft-drop-netserver

# 2. iptables (nf_tables backend): INPUT policy DROP, ssh allowed.
run iptables -P INPUT DROP
run iptables -A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
run iptables -A INPUT -p tcp --dport 22 -j ACCEPT
run iptables -A INPUT -p udp -m multiport --dports 7000:7100 -j REJECT --reject-with icmp-port-unreachable
save iptables-policy-drop

# 3. firewalld's layout (zones as chains reached by jump and goto, a final
# reject), with ssh and 9090 allowed in the public zone.
run nft -f - <<'R'
table inet firewalld {
	chain filter_INPUT {
		type filter hook input priority filter + 10; policy accept;
		ct state { established, related } accept
		ct state invalid drop
		iifname "lo" accept
		jump filter_INPUT_ZONES
		reject with icmpx admin-prohibited
	}
	chain filter_INPUT_ZONES {
		iifname "eth0" goto filter_IN_public
		goto filter_IN_public
	}
	chain filter_IN_public {
		jump filter_IN_public_pre
		jump filter_IN_public_allow
		meta l4proto { icmp, ipv6-icmp } accept
	}
	chain filter_IN_public_pre {
	}
	chain filter_IN_public_allow {
		tcp dport 22 ct state { new, untracked } accept
		tcp dport 9090 ct state { new, untracked } accept
	}
}
R
save firewalld-public-zone

# 4. Nothing in the way.
save empty
