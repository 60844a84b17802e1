package lab

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"
)

// Plan is what the guest agent does after boot. The host writes it as JSON
// to PlanPath in the per-run overlay.
type Plan struct {
	// Modules are loaded with modprobe before the first step; a failure is
	// reported as a log record and does not stop the run.
	Modules []string `json:"modules,omitempty"`
	// Env is added to every step's environment ("KEY=value").
	Env []string `json:"env,omitempty"`
	// Steps run one after another; a failing step does not stop the next.
	Steps []Step `json:"steps"`
	// Collect is a guest directory whose regular files are sent back after
	// the last step (for fixtures and reports). Empty: nothing is collected.
	Collect string `json:"collect,omitempty"`
}

// Step is one program the agent runs inside the guest.
type Step struct {
	Name string   `json:"name"`
	Path string   `json:"path"` // absolute path inside the guest
	Args []string `json:"args,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Timeout bounds the step; the agent kills its process group when it
	// expires. Zero means no limit but the run's own deadline.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ExitStatus is how a step ended inside the guest.
type ExitStatus struct {
	Code     int     `json:"code"`             // exit code; -1 when killed by a signal or not started
	Signal   string  `json:"signal,omitempty"` // e.g. "killed"
	TimedOut bool    `json:"timed_out,omitempty"`
	Error    string  `json:"error,omitempty"` // why the step could not start, if it did not
	Seconds  float64 `json:"seconds"`
}

// OK reports whether the step ran and exited 0.
func (e ExitStatus) OK() bool { return e.Code == 0 && e.Error == "" && !e.TimedOut }

// String gives a short human form: "exit 0", "timed out after 3.0s".
func (e ExitStatus) String() string {
	switch {
	case e.Error != "":
		return "not started: " + e.Error
	case e.TimedOut:
		return fmt.Sprintf("timed out after %.1fs", e.Seconds)
	case e.Signal != "":
		return "signal " + e.Signal
	}
	return fmt.Sprintf("exit %d", e.Code)
}

// AgentInfo is the agent's greeting: what the guest booted.
type AgentInfo struct {
	Kernel   string  `json:"kernel"`   // uname -r
	CPUs     int     `json:"cpus"`     // online CPUs
	MemMiB   int     `json:"mem_mib"`  // MemTotal
	UptimeS  float64 `json:"uptime_s"` // seconds since boot when the agent started
	Hostname string  `json:"hostname"`
}

// Guest paths used by the overlay and the agent.
const (
	PlanPath = "/lab/plan.json" // the Plan
	BinDir   = "/lab/bin"       // binaries added by the overlay
	PortName = "rocekit.lab"    // virtserialport name of the result channel
	EnvInLab = "ROCEKIT_LAB"    // set to "1" in every step's environment
	EnvSuite = "ROCEKIT_LAB_SUITE"
	EnvGuest = "ROCEKIT_LAB_GUEST" // the guest's name in a multi-guest run
	// EnvSuites is the comma-separated suites a host-side TestGuests*
	// test boots (lab test sets it to one suite per run); a suite it
	// names whose image is missing fails the test rather than skipping.
	EnvSuites = "ROCEKIT_LAB_SUITES"
	// EnvCache is the image cache folder (see DefaultCacheDir).
	EnvCache  = "ROCEKIT_LAB_CACHE"
	AgentPath = "/init" // the agent is the initramfs init
)

// Validate checks a plan before it is sent to a guest.
func (p *Plan) Validate() error {
	if len(p.Steps) == 0 {
		return fmt.Errorf("lab: plan has no steps")
	}
	for i, s := range p.Steps {
		if !path.IsAbs(s.Path) {
			return fmt.Errorf("lab: step %d (%s): path %q is not absolute", i, s.Name, s.Path)
		}
		if s.Timeout < 0 {
			return fmt.Errorf("lab: step %d (%s): negative timeout", i, s.Name)
		}
	}
	for _, kv := range p.Env {
		if !strings.Contains(kv, "=") {
			return fmt.Errorf("lab: env entry %q is not KEY=value", kv)
		}
	}
	if p.Collect != "" && !path.IsAbs(p.Collect) {
		return fmt.Errorf("lab: collect dir %q is not absolute", p.Collect)
	}
	return nil
}

// MarshalPlan encodes a plan for the overlay.
func MarshalPlan(p *Plan) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return json.MarshalIndent(p, "", "  ")
}
