package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocekit/rocekit/perftest"
)

// TestStreamMatchesWhole: the streamed JSON of a real capture is the same
// object as the JSON of the capture read whole.
func TestStreamMatchesWhole(t *testing.T) {
	files, _ := filepath.Glob("../../rocekittest/captures/*/perftest/*/client.stdout")
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !streamable(data) {
			continue
		}
		whole, werr := parse(data)
		var streamed bytes.Buffer
		serr := perftest.WriteStreamJSON(&streamed, bytes.NewReader(data))
		if (werr == nil) != (serr == nil) {
			t.Errorf("%s: whole %v, streamed %v", f, werr, serr)
			continue
		}
		var a, b map[string]any
		if err := json.Unmarshal(whole, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := json.Unmarshal(streamed.Bytes(), &b); err != nil {
			t.Fatalf("%s: streamed JSON: %v\n%s", f, err, streamed.Bytes())
		}
		delete(a, "parse_error") // the stream's line numbers may differ
		delete(b, "parse_error")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: streamed object differs:\nwhole    %s\nstreamed %s", f, whole, streamed.Bytes())
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d captures checked", checked)
	}
}
