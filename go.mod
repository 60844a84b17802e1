module github.com/rocekit/rocekit

go 1.26.0

require (
	github.com/cavaliergopher/cpio v1.0.1
	github.com/klauspost/compress v1.20.3
	golang.org/x/sys v0.50.0
)

require (
	github.com/google/go-cmp v0.7.0
	github.com/vishvananda/netlink v1.3.1
	github.com/vishvananda/netns v0.0.5
)

require github.com/safchain/ethtool v0.7.0 // indirect
