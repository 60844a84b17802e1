package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Module is this module's import path; the lab builds its own packages.
const Module = "github.com/rocekit/rocekit"

// goEnv is the environment for binaries that run inside a guest: static,
// for the guests' architecture.
func goEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
}

// BuildAgent compiles the guest agent (cmd/labinit) into dir and returns
// its path.
//
// Similar to: CGO_ENABLED=0 go build -o DIR/labinit ./internal/lab/cmd/labinit
func BuildAgent(ctx context.Context, dir string) (string, error) {
	return BuildBinary(ctx, Module+"/internal/lab/cmd/labinit", filepath.Join(dir, "labinit"))
}

// BuildBinary compiles a main package of this module as a static binary.
func BuildBinary(ctx context.Context, pkg, out string) (string, error) {
	return out, goCmd(ctx, "build", "-trimpath", "-o", out, pkg)
}

// BuildTest compiles pkg's tests with the lab build tag into out.
//
// Similar to: CGO_ENABLED=0 go test -c -tags lab -o OUT PKG
func BuildTest(ctx context.Context, pkg, out string) error {
	return goCmd(ctx, "test", "-c", "-tags", "lab", "-o", out, pkg)
}

func goCmd(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("lab: go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return nil
}

// TestPackage is a package with lab tests.
type TestPackage struct {
	ImportPath string
	Dir        string // source folder on the host
}

// LabTestPackages lists the packages matching patterns (go list patterns
// such as "./fleet"; none: the whole module) that have tests behind the
// "lab" build tag (files with a //go:build lab line), in import path
// order. A package that does not compile is still listed (go list -e):
// building its tests fails on its own.
func LabTestPackages(ctx context.Context, patterns ...string) ([]TestPackage, error) {
	if len(patterns) == 0 {
		patterns = []string{Module + "/..."}
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-e", "-tags", "lab", "-f",
		`{{.ImportPath}}|{{.Dir}}|{{join .TestGoFiles ","}}|{{join .XTestGoFiles ","}}`}, patterns...)...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lab: go list: %w", err)
	}
	var pkgs []TestPackage
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 4 {
			continue
		}
		files := strings.FieldsFunc(parts[2]+","+parts[3], func(r rune) bool { return r == ',' })
		for _, f := range files {
			if hasLabTag(filepath.Join(parts[1], f)) {
				pkgs = append(pkgs, TestPackage{ImportPath: parts[0], Dir: parts[1]})
				break
			}
		}
	}
	return pkgs, nil
}

// hasLabTag reports whether a Go file's build constraint requires "lab".
func hasLabTag(file string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if strings.HasPrefix(line, "//go:build ") && strings.Contains(" "+line[len("//go:build "):]+" ", " lab ") {
			return true
		}
	}
	return false
}
