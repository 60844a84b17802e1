package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// imageFormat changes whenever the way an image is made changes, so that
// old cache entries are not reused.
const imageFormat = 1

// Suites the lab knows; each gives a different kernel and tool generation.
var Suites = []string{"bookworm", "trixie"}

// DefaultPackages are installed in every image, beside debootstrap's
// minbase: the kernel, the RDMA user space, the tools rocekit drives.
var DefaultPackages = []string{
	"linux-image-amd64", "kmod", "iproute2", "rdma-core", "ibverbs-providers",
	"ibverbs-utils", "perftest", "ethtool", "netperf", "procps",
	// sshd for the two-host runs (the far guest is reached over SSH).
	"openssh-server",
	// nft for the preflight's firewall check (a rule in the way, quoted).
	"nftables",
	// Slurm for the fleet's srun path (fleet/slurm_lab_test.go): controller,
	// node daemon, client commands and their authentication.
	"slurmctld", "slurmd", "slurm-client", "munge",
}

// DefaultModuleDirs are the kernel module paths (relative to
// lib/modules/<release>/kernel, without the .ko suffix) kept in an image:
// rdma_rxe and its dependencies, virtio, and the virtual NICs. Everything
// else is dropped to keep the initramfs small.
var DefaultModuleDirs = []string{
	"arch", "crypto", "lib", "net",
	"fs/configfs", // rdma_cm (perftest -R) needs it
	"drivers/infiniband", "drivers/virtio", "drivers/char/virtio_console",
	"drivers/net/veth", "drivers/net/virtio_net", "drivers/net/net_failover",
	"drivers/net/macvlan", "drivers/net/dummy",
}

// ImageSpec says what goes into a guest image. Two specs with the same Key
// share a cache entry.
type ImageSpec struct {
	Suite      string   // Debian suite: bookworm, trixie
	Packages   []string // installed with debootstrap --include
	Components []string // archive components; non-free holds netperf
	ModuleDirs []string // kernel modules kept; see DefaultModuleDirs
	// Mirror is the Debian mirror; it does not change the key, since every
	// mirror serves the same packages.
	Mirror string
}

// DefaultSpec returns the standard image for a suite.
func DefaultSpec(suite string) ImageSpec {
	return ImageSpec{
		Suite:      suite,
		Packages:   slices.Clone(DefaultPackages),
		Components: []string{"main", "non-free"},
		ModuleDirs: slices.Clone(DefaultModuleDirs),
		Mirror:     "http://deb.debian.org/debian",
	}
}

// Validate rejects specs that cannot be built or would escape the cache.
func (s ImageSpec) Validate() error {
	if s.Suite == "" || strings.ContainsAny(s.Suite, "/ .") {
		return fmt.Errorf("lab: bad suite name %q", s.Suite)
	}
	if len(s.Packages) == 0 {
		return errors.New("lab: image spec lists no packages")
	}
	for _, p := range s.Packages {
		if p == "" || strings.ContainsAny(p, ", \t") {
			return fmt.Errorf("lab: bad package name %q", p)
		}
	}
	return nil
}

// Key identifies the image content: the suite, the sorted package,
// component and module lists, and the image format. It is stable across
// runs and machines.
func (s ImageSpec) Key() string {
	canon := struct {
		Format     int
		Suite      string
		Packages   []string
		Components []string
		ModuleDirs []string
	}{imageFormat, s.Suite, sortedUnique(s.Packages), sortedUnique(s.Components), sortedUnique(s.ModuleDirs)}
	b, _ := json.Marshal(canon) // cannot fail: strings and ints only
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Name is the cache entry's folder name: suite and key.
func (s ImageSpec) Name() string { return s.Suite + "-" + s.Key() }

func sortedUnique(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}

// Manifest describes a built image; it is stored beside the image files.
type Manifest struct {
	Suite         string            `json:"suite"`
	Key           string            `json:"key"`
	KernelRelease string            `json:"kernel_release"`
	Packages      map[string]string `json:"packages"` // every installed package and its version
	Spec          ImageSpec         `json:"spec"`
	Built         time.Time         `json:"built"`
	BuildSeconds  float64           `json:"build_seconds"`
	InitrdBytes   int64             `json:"initrd_bytes"`
}

// Image is a built, cached guest image.
type Image struct {
	Dir      string
	Kernel   string // vmlinuz path
	Initrd   string // base initramfs path (gzip-compressed cpio)
	Manifest Manifest
}

// Files of an image folder.
const (
	manifestFile = "manifest.json"
	kernelFile   = "vmlinuz"
	initrdFile   = "base.cpio.gz"
)

// ErrImageMissing says an image is not in the cache yet; build it with
// Cache.Build (make lab-image).
var ErrImageMissing = errors.New("lab: image not built")

// Cache holds built images under one folder.
type Cache struct {
	Dir string
}

// DefaultCacheDir is $ROCEKIT_LAB_CACHE, or rocekit/lab under the user's
// cache folder.
func DefaultCacheDir() string {
	if d := os.Getenv(EnvCache); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "rocekit", "lab")
	}
	return filepath.Join(os.TempDir(), "rocekit-lab")
}

// Lookup returns the cached image for spec, or an error wrapping
// ErrImageMissing.
func (c Cache) Lookup(spec ImageSpec) (*Image, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	dir := filepath.Join(c.Dir, spec.Name())
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (in %s)", ErrImageMissing, spec.Name(), c.Dir)
	}
	if err != nil {
		return nil, err
	}
	img := &Image{Dir: dir, Kernel: filepath.Join(dir, kernelFile), Initrd: filepath.Join(dir, initrdFile)}
	if err := json.Unmarshal(b, &img.Manifest); err != nil {
		return nil, fmt.Errorf("lab: image %s: manifest: %w", dir, err)
	}
	for _, f := range []string{img.Kernel, img.Initrd} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("lab: image %s is incomplete: %w", dir, err)
		}
	}
	return img, nil
}

// Prune deletes the cached images of keep's suites whose key is not
// keep's: what an earlier package or module list left behind. Images of
// other suites and anything that is not an image folder stay. It returns
// the folders removed.
func (c Cache) Prune(keep []ImageSpec) ([]string, error) {
	current := map[string]bool{}
	suites := map[string]bool{}
	for _, s := range keep {
		current[s.Name()] = true
		suites[s.Suite] = true
	}
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		suite, key, ok := strings.Cut(e.Name(), "-")
		if !e.IsDir() || !ok || !suites[suite] || current[e.Name()] || !isImageKey(key) {
			continue
		}
		dir := filepath.Join(c.Dir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, manifestFile)); err != nil {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, err
		}
		removed = append(removed, dir)
	}
	return removed, nil
}

// isImageKey reports whether s looks like ImageSpec.Key: 16 hex digits.
func isImageKey(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
