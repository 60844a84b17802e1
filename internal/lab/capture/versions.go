package capture

import "strings"

// versionSource says where the version of a tool comes from: the Debian package whose
// version dpkg-query reports, and the tool's own version command. The tool "kernel" is
// versioned by the kernel release.
func versionSource(tool string) (pkg string, argv []string) {
	switch tool {
	case "perftest":
		return "perftest", []string{"ib_send_bw", "--version"}
	case "netperf":
		return "netperf", []string{"netperf", "-V"}
	case "rdma":
		return "iproute2", []string{"rdma", "-V"}
	case "ip":
		return "iproute2", []string{"ip", "-V"}
	case "ethtool":
		return "ethtool", []string{"ethtool", "--version"}
	case "ibverbs-utils":
		return "ibverbs-utils", nil
	}
	return "", nil
}

// formatToolVersion joins a package version and a version text into
// "PKGVERSION (TEXT)", with the non-empty lines of the text joined by "; ".
func formatToolVersion(pkgVersion, text string) string {
	if pkgVersion == "" {
		pkgVersion = "unknown"
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return pkgVersion
	}
	return pkgVersion + " (" + strings.Join(lines, "; ") + ")"
}
