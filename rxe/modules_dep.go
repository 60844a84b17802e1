package rxe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
)

// ModuleDep is one line of modules.dep: a loadable module file and the
// module files it needs.
type ModuleDep struct {
	Path string   // "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz"
	Deps []string // in the order modprobe loads them last-to-first
}

// Name is the module name modprobe and /sys/module use: the file name
// without .ko and compression suffix, with '-' as '_'.
func (d ModuleDep) Name() string { return moduleName(d.Path) }

func moduleName(p string) string {
	b := path.Base(p)
	if i := strings.Index(b, ".ko"); i >= 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}

// ParseModulesDep parses /lib/modules/RELEASE/modules.dep
// ("path.ko: dep.ko dep.ko", one module a line). A line without a colon is
// an error naming its number; the lines before it are returned.
func ParseModulesDep(r io.Reader) ([]ModuleDep, error) {
	var out []ModuleDep
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		mod, deps, ok := bytes.Cut(line, []byte(":"))
		mod = bytes.TrimSpace(mod)
		if !ok || len(mod) == 0 {
			return out, fmt.Errorf("%w: modules.dep line %d: %q: want \"module: deps\"", ErrParse, n, line)
		}
		d := ModuleDep{Path: string(mod)}
		for _, f := range bytes.Fields(deps) {
			d.Deps = append(d.Deps, string(f))
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: modules.dep: %w", ErrParse, err)
	}
	return out, nil
}

// ParseModulesBuiltin parses /lib/modules/RELEASE/modules.builtin: the
// module files compiled into the kernel, one a line.
func ParseModulesBuiltin(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.ContainsAny(line, " \t:") {
			return out, fmt.Errorf("%w: modules.builtin line %d: %q: want one path", ErrParse, n, line)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: modules.builtin: %w", ErrParse, err)
	}
	return out, nil
}
