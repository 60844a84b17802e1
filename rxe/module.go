package rxe

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ModuleName is the kernel module of soft-RoCE. `rdma link add ... type rxe`
// loads it by itself (the kernel calls request_module("rdma-link-rxe")).
const ModuleName = "rdma_rxe"

// coreModule is the RDMA core that provides NETLINK_RDMA.
const coreModule = "ib_core"

// Check is one step of the module diagnosis.
type Check struct {
	Name   string `json:"name"`   // "rdma_rxe loaded"
	Path   string `json:"path"`   // the file it looked at, relative to the root
	OK     bool   `json:"ok"`     // true when the check passed
	Detail string `json:"detail"` // what it found
}

// ModuleStatus says whether rdma_rxe can be used on this kernel.
type ModuleStatus struct {
	KernelRelease string  `json:"kernel_release"`
	Loaded        bool    `json:"loaded"`   // /sys/module/rdma_rxe exists
	BuiltIn       bool    `json:"built_in"` // listed in modules.builtin
	Available     bool    `json:"available"`
	ModulePath    string  `json:"module_path,omitempty"` // from modules.dep
	CoreAvailable bool    `json:"core_available"`        // ib_core loaded, built in or installed
	Checks        []Check `json:"checks"`
}

// Usable reports whether rdma_rxe is loaded, built in, or can be loaded.
func (s ModuleStatus) Usable() bool { return s.Loaded || s.BuiltIn || s.Available }

// Diagnosis says, in one line, which checks failed; "" when Usable.
func (s ModuleStatus) Diagnosis() string {
	if s.Usable() {
		return ""
	}
	var failed []string
	for _, c := range s.Checks {
		if !c.OK {
			failed = append(failed, fmt.Sprintf("%s (/%s): %s", c.Name, c.Path, c.Detail))
		}
	}
	cause := "the kernel was built without soft-RoCE (CONFIG_RDMA_RXE)"
	if !s.CoreAvailable {
		cause = "the kernel has no RDMA support (CONFIG_INFINIBAND, CONFIG_RDMA_RXE)"
	}
	return fmt.Sprintf("rdma_rxe cannot be loaded on kernel %s: %s; so %s, or its modules are not installed",
		s.KernelRelease, strings.Join(failed, "; "), cause)
}

// RXEModule checks, without changing anything, whether rdma_rxe is loaded
// (/sys/module/rdma_rxe), built in (modules.builtin) or installed
// (modules.dep) for the running kernel (/proc/sys/kernel/osrelease), and
// whether the RDMA core (ib_core) is there. Each check is recorded, so a
// failure says which one failed ("Operation not supported" in the runbook).
//
// Similar to: lsmod | grep rdma_rxe; modinfo rdma_rxe
func (r Root) RXEModule() (ModuleStatus, error) {
	var s ModuleStatus
	rel, err := r.readString("proc/sys/kernel/osrelease")
	if err != nil {
		return s, fmt.Errorf("rxe: kernel release: %w", err)
	}
	s.KernelRelease = rel
	modDir := path.Join("lib/modules", rel)

	loaded := path.Join("sys/module", ModuleName)
	s.Loaded = r.exists(loaded)
	s.Checks = append(s.Checks, Check{Name: "rdma_rxe loaded", Path: loaded, OK: s.Loaded,
		Detail: yesNo(s.Loaded, "loaded", "not loaded")})

	builtin, berr := r.builtinModules(modDir)
	s.BuiltIn = builtin[ModuleName]
	s.Checks = append(s.Checks, Check{Name: "rdma_rxe built in", Path: path.Join(modDir, "modules.builtin"), OK: s.BuiltIn,
		Detail: detail(berr, s.BuiltIn, "listed", "not listed")})

	deps, derr := r.moduleDeps(modDir)
	if d, ok := deps[ModuleName]; ok {
		s.Available, s.ModulePath = true, d.Path
	}
	s.Checks = append(s.Checks, Check{Name: "rdma_rxe installed", Path: path.Join(modDir, "modules.dep"), OK: s.Available,
		Detail: detail(derr, s.Available, "module file "+s.ModulePath, "no rdma_rxe.ko listed")})

	coreLoaded := r.exists(path.Join("sys/module", coreModule))
	_, coreInstalled := deps[coreModule]
	s.CoreAvailable = coreLoaded || builtin[coreModule] || coreInstalled
	s.Checks = append(s.Checks, Check{Name: "RDMA core (ib_core)", Path: path.Join("sys/module", coreModule), OK: s.CoreAvailable,
		Detail: yesNo(s.CoreAvailable, "loaded, built in or installed", "neither loaded, built in nor installed")})

	hasClass := r.exists(classInfiniband)
	s.Checks = append(s.Checks, Check{Name: "InfiniBand class", Path: classInfiniband, OK: hasClass || !coreLoaded,
		Detail: yesNo(hasClass, "present", "absent")})
	return s, nil
}

func yesNo(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// detail describes a lookup in a file that may be missing.
func detail(err error, ok bool, yes, no string) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "file missing (kernel modules not installed for this release)"
	case err != nil:
		return err.Error()
	}
	return yesNo(ok, yes, no)
}

func (r Root) builtinModules(modDir string) (map[string]bool, error) {
	b, err := fs.ReadFile(r.fs(), path.Join(modDir, "modules.builtin"))
	if err != nil {
		return nil, err
	}
	paths, err := ParseModulesBuiltin(bytes.NewReader(b))
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[moduleName(p)] = true
	}
	return m, err
}

func (r Root) moduleDeps(modDir string) (map[string]ModuleDep, error) {
	b, err := fs.ReadFile(r.fs(), path.Join(modDir, "modules.dep"))
	if err != nil {
		return nil, err
	}
	deps, err := ParseModulesDep(bytes.NewReader(b))
	m := make(map[string]ModuleDep, len(deps))
	for _, d := range deps {
		m[d.Name()] = d
	}
	return m, err
}
