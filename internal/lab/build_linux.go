package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cavaliergopher/cpio"
	"github.com/klauspost/compress/gzip"
	"golang.org/x/sys/unix"
)

// Build returns the image for spec, building it first when the cache does
// not hold it. The build runs in a temporary folder that is renamed into
// place only when complete, under a per-image file lock, so a crash leaves
// no half image and two racing runs build it once. It needs root and
// debootstrap; progress goes to log.
//
// Similar to: debootstrap --variant=minbase --include=... SUITE DIR, then
// packing DIR into an initramfs.
func (c Cache) Build(ctx context.Context, spec ImageSpec, log io.Writer) (*Image, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if img, err := c.Lookup(spec); err == nil {
		return img, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, filepath.Join(c.Dir, "."+spec.Name()+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another run may have built it while we waited for the lock.
	if img, err := c.Lookup(spec); err == nil {
		return img, nil
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("lab: building an image needs root (debootstrap)")
	}
	c.removeStaleBuilds(spec, log)
	tmp, err := os.MkdirTemp(c.Dir, ".build-"+spec.Name()+"-")
	if err != nil {
		return nil, err
	}
	defer removeBuildDir(tmp)

	began := time.Now()
	m, err := buildInto(ctx, tmp, spec, log)
	if err != nil {
		return nil, fmt.Errorf("lab: build %s: %w", spec.Name(), err)
	}
	m.Built = time.Now().UTC()
	m.BuildSeconds = time.Since(began).Seconds()
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, manifestFile), b, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(c.Dir, spec.Name())); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "lab: image %s built in %.0fs\n", spec.Name(), m.BuildSeconds)
	return c.Lookup(spec)
}

// buildInto bootstraps a root file system in dir/rootfs and turns it into
// dir/vmlinuz and dir/base.cpio.gz.
func buildInto(ctx context.Context, dir string, spec ImageSpec, log io.Writer) (*Manifest, error) {
	rootfs := filepath.Join(dir, "rootfs")
	args := []string{
		"--variant=minbase",
		"--components=" + strings.Join(spec.Components, ","),
		"--include=" + strings.Join(spec.Packages, ","),
		spec.Suite, rootfs,
	}
	if spec.Mirror != "" {
		args = append(args, spec.Mirror)
	}
	fmt.Fprintf(log, "lab: debootstrap %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "debootstrap", args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("debootstrap: %w", err)
	}
	kernels, _ := filepath.Glob(filepath.Join(rootfs, "boot", "vmlinuz-*"))
	if len(kernels) != 1 {
		return nil, fmt.Errorf("want one kernel in %s/boot, found %d", rootfs, len(kernels))
	}
	release := strings.TrimPrefix(filepath.Base(kernels[0]), "vmlinuz-")
	if err := copyFile(kernels[0], filepath.Join(dir, kernelFile)); err != nil {
		return nil, err
	}
	modDir := filepath.Join(rootfs, "usr", "lib", "modules", release)
	if err := pruneModules(filepath.Join(modDir, "kernel"), spec.ModuleDirs); err != nil {
		return nil, err
	}
	// The image's own depmod matches its kmod (trixie's modules are .ko.xz).
	if out, err := exec.CommandContext(ctx, "chroot", rootfs, "depmod", release).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("depmod: %w: %s", err, out)
	}
	pkgs, err := installedPackages(ctx, rootfs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "lab: packing %s\n", initrdFile)
	size, err := packRootfs(rootfs, filepath.Join(dir, initrdFile))
	if err != nil {
		return nil, err
	}
	if err := removeBuildDir(rootfs); err != nil {
		return nil, err
	}
	return &Manifest{Suite: spec.Suite, Key: spec.Key(), KernelRelease: release, Packages: pkgs, Spec: spec, InitrdBytes: size}, nil
}

// packRootfs writes the root file system as a gzip-compressed cpio archive,
// leaving out what a test guest never reads.
func packRootfs(rootfs, dst string) (int64, error) {
	f, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw, err := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	if err != nil {
		return 0, err
	}
	cw := cpio.NewWriter(zw)
	if err := writeTree(cw, rootfs, skipInImage); err != nil {
		return 0, err
	}
	for _, c := range []io.Closer{cw, zw} {
		if err := c.Close(); err != nil {
			return 0, err
		}
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// installedPackages lists the packages installed in rootfs with versions.
//
// Similar to: dpkg-query --admindir=ROOTFS/var/lib/dpkg -W
func installedPackages(ctx context.Context, rootfs string) (map[string]string, error) {
	out, err := exec.CommandContext(ctx, "dpkg-query", "--admindir="+filepath.Join(rootfs, "var/lib/dpkg"),
		"-W", "-f", "${Package}\t${Version}\n").Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	pkgs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, ver, ok := strings.Cut(line, "\t"); ok {
			pkgs[name] = ver
		}
	}
	return pkgs, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// removeStaleBuilds deletes temporary folders of this image left by a
// build that crashed; holding the image's lock proves nobody uses them.
func (c Cache) removeStaleBuilds(spec ImageSpec, log io.Writer) {
	stale, _ := filepath.Glob(filepath.Join(c.Dir, ".build-"+spec.Name()+"-*"))
	for _, d := range stale {
		fmt.Fprintf(log, "lab: removing stale build %s\n", d)
		if err := removeBuildDir(d); err != nil {
			fmt.Fprintf(log, "lab: %v\n", err)
		}
	}
}

// removeBuildDir unmounts what debootstrap may have left mounted inside dir
// (a killed debootstrap leaves proc or sys mounted in the target), then
// deletes dir. Deleting through a live mount would reach the host's /proc.
func removeBuildDir(dir string) error {
	mounts, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	for i := len(mounts) - 1; i >= 0; i-- {
		if err := unix.Unmount(mounts[i], unix.MNT_DETACH); err != nil {
			return fmt.Errorf("lab: unmount %s: %w (not deleting %s)", mounts[i], err, dir)
		}
	}
	return os.RemoveAll(dir)
}

// mountsUnder lists mount points at or below dir, in mount order.
func mountsUnder(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMountPath(fields[4])
		if mp == abs || strings.HasPrefix(mp, abs+"/") {
			out = append(out, mp)
		}
	}
	return out, sc.Err()
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// lockFile takes an exclusive flock on path, polling so that ctx can end
// the wait, and returns the function that releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lab: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}
