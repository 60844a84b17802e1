package lab

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Guest is one virtual machine of a run.
type Guest struct {
	Name   string // also the guest's hostname; [a-z0-9-]
	Image  *Image
	SMP    int // virtual CPUs; default 2
	MemMiB int // default 2048
	// NICs are virtio-net devices. They reach nothing outside the run: NICs
	// on the same Network inside one guest share a QEMU hub; a Network used
	// by two guests (one NIC each) is a point-to-point link between them,
	// and one used by three or more (one NIC each) is a shared L2 segment,
	// a hub the harness runs on unix sockets in the run folder.
	NICs []NIC
	Plan Plan
	// Files are added to the overlay beside the agent and the plan, e.g.
	// the binaries the plan's steps run (put them under BinDir).
	Files []OverlayFile
	// Append is added to the kernel command line.
	Append string
}

// NIC is a virtio-net device of a guest.
type NIC struct {
	Network string
	MAC     string // default: 52:54:00:<guest>:<network>:<nic>, unique in the run
}

// Defaults of a guest.
const (
	DefaultSMP    = 2
	DefaultMemMiB = 2048
)

// ErrConfig is wrapped by errors about an impossible guest setup.
var ErrConfig = errors.New("lab: bad guest configuration")

// runPaths are the host files of one guest in a run.
type runPaths struct {
	initrd  string // base + overlay
	console string // serial console log
	channel string // unix socket the agent's port connects to
	dir     string // the run folder (dgram sockets live here)
}

func pathsFor(dir, guest string) runPaths {
	return runPaths{
		initrd:  filepath.Join(dir, guest+".initrd"),
		console: filepath.Join(dir, guest+".console"),
		channel: filepath.Join(dir, guest+".sock"),
		dir:     dir,
	}
}

// kernelCmdline is the guest's kernel command line. quiet keeps the serial
// console short; panic=-1 with -no-reboot turns a crash into a QEMU exit.
// no_timer_check skips the kernel's IO-APIC timer test, which under TCG on
// a loaded host can find the timer too slow and panic ("IO-APIC + timer
// doesn't work!": seen twice in a row booting three trixie guests at once).
func kernelCmdline(extra string) string {
	s := "console=ttyS0 rdinit=" + AgentPath + " panic=-1 quiet no_timer_check"
	if extra != "" {
		s += " " + extra
	}
	return s
}

// validateGuests checks names and networks of a run's guests.
func validateGuests(guests []Guest) error {
	seen := map[string]bool{}
	users := map[string]map[int]int{} // network -> guest index -> NIC count
	for gi, g := range guests {
		if g.Name == "" || strings.Trim(g.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || len(g.Name) > 32 {
			return fmt.Errorf("%w: guest name %q (use [a-z0-9-], at most 32)", ErrConfig, g.Name)
		}
		if seen[g.Name] {
			return fmt.Errorf("%w: two guests named %q", ErrConfig, g.Name)
		}
		seen[g.Name] = true
		if g.Image == nil {
			return fmt.Errorf("%w: guest %s has no image", ErrConfig, g.Name)
		}
		if g.SMP < 0 || g.SMP > 64 || g.MemMiB < 0 {
			return fmt.Errorf("%w: guest %s: smp %d, memory %d MiB", ErrConfig, g.Name, g.SMP, g.MemMiB)
		}
		if err := g.Plan.Validate(); err != nil {
			return fmt.Errorf("%w: guest %s: %v", ErrConfig, g.Name, err)
		}
		for _, n := range g.NICs {
			if n.Network == "" || strings.ContainsAny(n.Network, ",=/ ") {
				return fmt.Errorf("%w: guest %s: network name %q", ErrConfig, g.Name, n.Network)
			}
			if users[n.Network] == nil {
				users[n.Network] = map[int]int{}
			}
			users[n.Network][gi]++
		}
	}
	for net, byGuest := range users {
		if len(byGuest) == 1 {
			continue
		}
		for gi, n := range byGuest {
			if n != 1 {
				return fmt.Errorf("%w: guest %s has %d NICs on shared network %q; a link or segment has one NIC per guest", ErrConfig, guests[gi].Name, n, net)
			}
		}
	}
	return nil
}

// qemuArgs builds the QEMU command line of guest gi of a run.
func qemuArgs(guests []Guest, gi int, p runPaths) []string {
	g := guests[gi]
	smp, mem := g.SMP, g.MemMiB
	if smp == 0 {
		smp = DefaultSMP
	}
	if mem == 0 {
		mem = DefaultMemMiB
	}
	args := []string{
		"-name", g.Name,
		"-accel", "tcg,thread=multi", "-cpu", "max",
		"-smp", strconv.Itoa(smp), "-m", strconv.Itoa(mem),
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-nic", "none", // no user-mode NIC: guests reach nothing outside the run
		"-serial", "file:" + p.console,
		"-kernel", g.Image.Kernel, "-initrd", p.initrd,
		"-append", kernelCmdline(g.Append),
		"-device", "virtio-serial-pci,id=vser0",
		"-chardev", "socket,id=labch,path=" + p.channel,
		"-device", "virtserialport,bus=vser0.0,chardev=labch,name=" + PortName,
	}
	hubs := map[string]int{}
	for ni, n := range g.NICs {
		id := fmt.Sprintf("n%d", ni)
		if peers := peersOf(guests, gi, n.Network); len(peers) > 0 {
			// A point-to-point link: datagrams between two unix sockets,
			// so neither guest has to start first. A segment: between the
			// guest's socket and the harness's hub (see segment).
			remote := linkSocket(p.dir, n.Network, guests[peers[0]].Name)
			if len(peers) > 1 {
				remote = segmentHub(p.dir, n.Network)
			}
			args = append(args, "-netdev", fmt.Sprintf(
				"dgram,id=%s,local.type=unix,local.path=%s,remote.type=unix,remote.path=%s",
				id, linkSocket(p.dir, n.Network, g.Name), remote))
		} else {
			hub, ok := hubs[n.Network]
			if !ok {
				hub = len(hubs)
				hubs[n.Network] = hub
			}
			args = append(args, "-netdev", fmt.Sprintf("hubport,id=%s,hubid=%d", id, hub))
		}
		mac := n.MAC
		if mac == "" {
			mac = fmt.Sprintf("52:54:00:%02x:%02x:%02x", gi&0xff, hubOrLink(hubs, n.Network), ni&0xff)
		}
		args = append(args, "-device", fmt.Sprintf("virtio-net-pci,netdev=%s,mac=%s", id, mac))
	}
	return args
}

func hubOrLink(hubs map[string]int, network string) int {
	if h, ok := hubs[network]; ok {
		return h & 0xff
	}
	return 0xff
}

// peersOf returns the other guests on a shared network, in order.
func peersOf(guests []Guest, gi int, network string) []int {
	var peers []int
	for i, g := range guests {
		if i == gi {
			continue
		}
		for _, n := range g.NICs {
			if n.Network == network {
				peers = append(peers, i)
				break
			}
		}
	}
	return peers
}

// segments returns the networks shared by three or more guests, each with
// its members' sockets.
func segments(guests []Guest, dir string) map[string][]string {
	out := map[string][]string{}
	for gi, g := range guests {
		for _, n := range g.NICs {
			if len(peersOf(guests, gi, n.Network)) > 1 {
				out[n.Network] = append(out[n.Network], linkSocket(dir, n.Network, g.Name))
			}
		}
	}
	return out
}

func segmentHub(dir, network string) string {
	return filepath.Join(dir, "hub-"+network+".sock")
}

func linkSocket(dir, network, guest string) string {
	return filepath.Join(dir, "link-"+network+"-"+guest+".sock")
}
