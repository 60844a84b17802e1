package lab

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentStream encodes records as the agent would send them.
func agentStream(recs ...Record) *bytes.Buffer {
	var buf bytes.Buffer
	w := NewRecordWriter(&buf)
	for _, r := range recs {
		w.Write(r)
	}
	return &buf
}

func TestCollectorBuildsResult(t *testing.T) {
	plan := &Plan{Steps: []Step{{Name: "one", Path: "/bin/a"}, {Name: "two", Path: "/bin/b"}}, Collect: "/out"}
	stream := agentStream(
		Record{KindHello, -1, []byte(`{"kernel":"6.12.117+deb13-amd64","cpus":4}`)},
		Record{KindLog, -1, []byte("modprobe foo: not found")},
		Record{KindStart, 0, []byte(`{}`)},
		Record{KindStdout, 0, []byte("hello ")},
		Record{KindStderr, 0, []byte("warn\n")},
		Record{KindStdout, 0, []byte("world\n")},
		Record{KindExit, 0, []byte(`{"code":0,"seconds":0.5}`)},
		Record{KindStart, 1, []byte(`{}`)},
		Record{KindExit, 1, []byte(`{"code":-1,"signal":"killed","timed_out":true,"seconds":3}`)},
		Record{KindFile, -1, []byte("perftest/send-bw/case.json")},
		Record{KindFileData, -1, []byte(`{"id":`)},
		Record{KindFileData, -1, []byte(`"x"}`)},
		Record{KindFile, -1, []byte("empty")},
		Record{KindDone, -1, nil},
	)
	var live bytes.Buffer
	res := &Result{Guest: "g"}
	c := newCollector(res, plan, &live)
	if err := c.readRecords(stream); err != nil {
		t.Fatal(err)
	}
	if res.Agent.Kernel != "6.12.117+deb13-amd64" || res.Agent.CPUs != 4 {
		t.Errorf("agent = %+v", res.Agent)
	}
	if got := string(res.Steps[0].Stdout); got != "hello world\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := string(res.Steps[0].Stderr); got != "warn\n" {
		t.Errorf("stderr = %q", got)
	}
	if !res.Steps[0].Exit.OK() || !res.Steps[0].Finished {
		t.Errorf("step one: %+v", res.Steps[0].Exit)
	}
	if e := res.Steps[1].Exit; e.OK() || !e.TimedOut || e.String() != "timed out after 3.0s" {
		t.Errorf("step two: %+v (%s)", e, e)
	}
	want := map[string][]byte{"perftest/send-bw/case.json": []byte(`{"id":"x"}`), "empty": {}}
	if d := cmp.Diff(want, res.Files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if !res.Done || res.OK() {
		t.Errorf("done %v ok %v, want done and not ok (step two timed out)", res.Done, res.OK())
	}
	if len(res.Log) != 1 || len(res.ProtocolErrors) != 0 {
		t.Errorf("log %q, protocol errors %q", res.Log, res.ProtocolErrors)
	}
	if !strings.Contains(live.String(), "hello warn\nworld") || !strings.Contains(live.String(), "--- g: two: timed out") {
		t.Errorf("live output:\n%s", live.String())
	}
}

func TestCollectorKeepsPartialResults(t *testing.T) {
	plan := &Plan{Steps: []Step{{Name: "one", Path: "/bin/a"}}}
	stream := agentStream(
		Record{KindStart, 0, nil},
		Record{KindStdout, 0, []byte("partial")},
		Record{KindStdout, 7, []byte("wrong step")},
		Record{KindFile, -1, []byte("../../etc/passwd")},
		Record{KindFileData, -1, []byte("x")},
	)
	stream.WriteString("LAB1 exit 0 e30") // torn: the guest died mid-line
	res := &Result{}
	if err := newCollector(res, plan, nil).readRecords(stream); err != nil {
		t.Fatal(err)
	}
	if string(res.Steps[0].Stdout) != "partial" || res.Steps[0].Finished || res.Done || res.OK() {
		t.Errorf("partial result: %+v", res)
	}
	if len(res.Files) != 0 {
		t.Errorf("unsafe file accepted: %v", res.Files)
	}
	if len(res.ProtocolErrors) != 4 {
		t.Errorf("protocol errors = %q, want 4 (bad step, unsafe name, orphan data, torn line)", res.ProtocolErrors)
	}
}
