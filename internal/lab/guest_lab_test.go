//go:build lab

package lab

// Lab tests run inside a guest (lab test); outside one they skip. They use
// the tools directly, since the packages that will wrap them (rxe, nic)
// build on what these tests prove.

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func requireGuest(t *testing.T) {
	t.Helper()
	if os.Getenv(EnvInLab) != "1" {
		t.Skip("not inside a lab guest (ROCEKIT_LAB unset); run: go run ./internal/lab/cmd/lab test")
	}
}

func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestLabRxeGIDTable is the lab's reason to exist: a real kernel loads
// rdma_rxe, an rxe link comes up on a veth, and the GID table holds a
// RoCE v2 entry for the veth's IPv4 address.
func TestLabRxeGIDTable(t *testing.T) {
	requireGuest(t)
	sh(t, "modprobe", "rdma_rxe")
	sh(t, "ip", "link", "add", "rxveth0", "type", "veth", "peer", "name", "rxveth1")
	defer exec.Command("ip", "link", "del", "rxveth0").Run()
	sh(t, "ip", "addr", "add", "198.18.10.1/24", "dev", "rxveth0")
	sh(t, "ip", "link", "set", "rxveth0", "up")
	sh(t, "ip", "link", "set", "rxveth1", "up")
	sh(t, "rdma", "link", "add", "rxetest0", "type", "rxe", "netdev", "rxveth0")
	defer exec.Command("rdma", "link", "delete", "rxetest0").Run()

	state := waitFor(t, 10*time.Second, func() (string, bool) {
		out, _ := exec.Command("rdma", "link", "show", "rxetest0/1").CombinedOutput()
		return string(out), strings.Contains(string(out), "state ACTIVE")
	})
	if !strings.Contains(state, "physical_state LINK_UP") || !strings.Contains(state, "netdev rxveth0") {
		t.Errorf("rdma link show: %s", state)
	}
	port := "/sys/class/infiniband/rxetest0/ports/1"
	want := "0000:0000:0000:0000:0000:ffff:c612:0a01" // ::ffff:198.18.10.1
	found := waitFor(t, 10*time.Second, func() (string, bool) {
		gids, _ := filepath.Glob(port + "/gids/*")
		for _, g := range gids {
			b, _ := os.ReadFile(g)
			if strings.TrimSpace(string(b)) != want {
				continue
			}
			idx := filepath.Base(g)
			typ, _ := os.ReadFile(port + "/gid_attrs/types/" + idx)
			ndev, _ := os.ReadFile(port + "/gid_attrs/ndevs/" + idx)
			if strings.TrimSpace(string(typ)) == "RoCE v2" {
				return idx + " " + strings.TrimSpace(string(ndev)), true
			}
		}
		return "", false
	})
	idx, ndev, _ := strings.Cut(found, " ")
	if ndev != "rxveth0" {
		t.Errorf("GID %s (index %s) is on %q, want rxveth0", want, idx, ndev)
	}
	if _, err := strconv.Atoi(idx); err != nil {
		t.Errorf("GID index %q", idx)
	}
	t.Logf("RoCE v2 GID %s at index %s on %s", want, idx, ndev)
}

// TestLabVirtioNICInterrupts shows that the guest's two hub NICs, moved
// into two namespaces, carry traffic and count MSI-X interrupts.
func TestLabVirtioNICInterrupts(t *testing.T) {
	requireGuest(t)
	for _, nic := range []string{"eth0", "eth1"} {
		if _, err := os.Stat("/sys/class/net/" + nic); err != nil {
			t.Skipf("%s missing: the guest was started without two hub NICs", nic)
		}
	}
	for i, ns := range []string{"labA", "labB"} {
		nic := "eth" + strconv.Itoa(i)
		sh(t, "ip", "netns", "add", ns)
		defer exec.Command("ip", "netns", "del", ns).Run()
		sh(t, "ip", "link", "set", nic, "netns", ns)
		sh(t, "ip", "-n", ns, "addr", "add", "198.18.11."+strconv.Itoa(i+1)+"/24", "dev", nic)
		sh(t, "ip", "-n", ns, "link", "set", nic, "up")
		sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	before := virtioInputInterrupts(t)
	if len(before) < 2 {
		t.Fatalf("want input vectors of two virtio NICs in /proc/interrupts, got %v", before)
	}
	// netserver in labB, in the foreground so that this test owns its PID.
	srv := exec.Command("ip", "netns", "exec", "labB", "netserver", "-D", "-p", "12865", "-4")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	var out []byte
	waitFor(t, 20*time.Second, func() (string, bool) {
		var err error
		out, err = exec.Command("ip", "netns", "exec", "labA", "netperf", "-H", "198.18.11.2",
			"-p", "12865", "-t", "TCP_RR", "-l", "1", "-P", "0").CombinedOutput()
		return "", err == nil
	})
	after := virtioInputInterrupts(t)
	grew := 0
	for name, n := range after {
		if n > before[name] {
			grew++
		}
	}
	if grew < 2 {
		t.Errorf("input interrupts grew on %d vectors, want both NICs:\nbefore %v\nafter  %v", grew, before, after)
	}
	t.Logf("TCP_RR through the hub: %s", bytes.TrimSpace(out))
}

// virtioInputInterrupts sums each virtioN-input.M vector over all CPUs.
func virtioInputInterrupts(t *testing.T) map[string]uint64 {
	b, err := os.ReadFile("/proc/interrupts")
	if err != nil {
		t.Fatal(err)
	}
	cpus := len(strings.Fields(strings.SplitN(string(b), "\n", 2)[0]))
	counts := map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < cpus+2 || !strings.Contains(line, "-input.") {
			continue
		}
		var sum uint64
		for _, c := range f[1 : cpus+1] {
			n, _ := strconv.ParseUint(c, 10, 64)
			sum += n
		}
		counts[f[len(f)-1]] = sum
	}
	return counts
}

// TestLabLinkPeer is one end of the two-guest test on the host
// (TestRunTwoGuestsLinked): the server answers one UDP datagram across the
// guests' point-to-point link, the client sends until it gets the answer.
func TestLabLinkPeer(t *testing.T) {
	requireGuest(t)
	role := os.Getenv("LAB_PEER_ROLE")
	if role == "" {
		t.Skip("LAB_PEER_ROLE unset: only the two-guest host test runs this")
	}
	addr := map[string]string{"server": "198.18.12.1", "client": "198.18.12.2", "client2": "198.18.12.3"}[role]
	sh(t, "ip", "addr", "add", addr+"/24", "dev", "eth0")
	sh(t, "ip", "link", "set", "eth0", "up")
	deadline := time.Now().Add(60 * time.Second)
	if role == "server" {
		// Serve LAB_PEER_CLIENTS clients (on a segment, more than one).
		clients, _ := strconv.Atoi(os.Getenv("LAB_PEER_CLIENTS"))
		c, err := net.ListenPacket("udp4", "198.18.12.1:9000")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(deadline)
		buf := make([]byte, 64)
		for seen := map[string]bool{}; len(seen) < max(clients, 1); {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				t.Fatalf("answered %d of %d clients: %v", len(seen), max(clients, 1), err)
			}
			seen[from.(*net.UDPAddr).IP.String()] = true
			// Answer a few times: the first answer may race the client's ARP.
			for i := 0; i < 3; i++ {
				c.WriteTo(append([]byte("pong:"), buf[:n]...), from)
			}
		}
		return
	}
	c, err := net.Dial("udp4", "198.18.12.1:9000")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 64)
	for time.Now().Before(deadline) {
		c.Write([]byte("ping"))
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if n, err := c.Read(buf); err == nil {
			if got := string(buf[:n]); got != "pong:ping" {
				t.Fatalf("reply %q", got)
			}
			return
		}
	}
	t.Fatal("no reply from the other guest within 60s")
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, cond func() (string, bool)) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s, ok := cond()
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v (last: %q)", d, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
