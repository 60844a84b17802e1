package perftest

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSONStandardCPU(t *testing.T) {
	res, err := ParseJSON(bytes.NewReader(readTestdata(t, "v24-write-bw-cpu.json")))
	if err != nil {
		t.Fatal(err)
	}
	if res.LegacyJSON || res.Kind != ResultBW || res.Test != "RDMA_Write BW Test" || res.Header.Verb != "RDMA_Write" {
		t.Errorf("legacy %v kind %v test %q", res.LegacyJSON, res.Kind, res.Test)
	}
	h := res.Header
	if h.Device != "mlx5_0" || h.QPs != 1 || h.Connection != "RC" || h.MTU != 4096 || h.LinkType != "Ethernet" ||
		h.GIDIndex != 3 || h.TXDepth != 128 || h.CQModeration != 100 || !h.WRAPI || h.MaxInlineBytes != 0 {
		t.Errorf("header = %+v", h)
	}
	if d := cmp.Diff([]Field{{Key: "cuda_device", Value: "0"}}, h.Unknown); d != "" {
		t.Errorf("unknown keys (-want +got):\n%s", d)
	}
	r := res.BW[0]
	// No unit in the file: 65536 B × 0.179202 Mpps = 11744 MB/s = 93.95
	// Gb/s, so the 93.981234 printed are Gb/s.
	if r.Bytes != 65536 || r.Iterations != 1834250 || r.Printed.Avg != 93.981234 || r.PeakMeasured ||
		r.BWAvgGbps != 93.981234 || r.CPUUtilPercent != 38.5 || !r.HasCPUUtil || r.MsgRateMpps != 0.179202 {
		t.Errorf("row = %+v", r)
	}
	wantWarnings(t, res, WarnPeakNotMeasured)
	res.AssumeBWUnit(UnitMiBps) // a known unit stays
	if r := res.BW[0]; r.BWAvgGbps != 93.981234 || r.BWPeakGbps != 0 || r.Printed.Unit != UnitGbps || res.Header.BWUnit != UnitGbps {
		t.Errorf("after AssumeBWUnit: %+v", r)
	}
	wantWarnings(t, res, WarnPeakNotMeasured)
}

func TestParseJSONOutputBandwidth(t *testing.T) {
	res, err := ParseJSON(bytes.NewReader(readTestdata(t, "output-bw.json")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != ResultBare || res.Value != 19.499903 || res.LegacyJSON || res.Header.Device != "rxe0" {
		t.Errorf("result = %+v", res)
	}
}

func TestParseJSONLegacyInf(t *testing.T) {
	res, err := ParseJSON(bytes.NewReader(readTestdata(t, "legacy-atomic-lat-inf.json")))
	if err != nil {
		t.Fatal(err)
	}
	if !res.LegacyJSON || res.Kind != ResultLat || res.Test != "Atomic FETCH_AND_ADD Latency Test" ||
		res.Header.AtomicOp != "FETCH_AND_ADD" || !res.FullRTT || res.Header.OutstandingReads != 128 {
		t.Errorf("result = %+v", res)
	}
	r := res.Lat[0]
	if r.Bytes != 8 || r.Iterations != 1000 || r.TMinMicros != 22.70 || !math.IsInf(r.TMaxMicros, 1) ||
		!math.IsNaN(r.TStdevMicros) || !math.IsInf(r.P999Micros, 1) || r.P99Micros != 415.94 {
		t.Errorf("row = %+v", r)
	}
	wantWarnings(t, res, WarnNonFinite, WarnNonFinite, WarnNonFinite)
}

func TestParseJSONForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind ResultKind
		is   error
	}{
		{"minified", `{"test_info":{"test":"Send_Latency_Test","Device":"rxe0","Mtu":1024},"results":{"MsgSize":2,"n_iterations":11901,"t_avg":84.73,"tps_average":5900.98}}`, ResultLatDuration, nil},
		{"nested value", `{"test_info":{"test":"Send_BW_Test","x":{"y":[1,{"z":2}]}},"results":{"MsgSize":2,"n_iterations":1,"BW_peak":1,"BW_average":1,"MsgRate":1}}`, ResultBW, nil},
		{"no results", `{"test_info":{"test":"Send_BW_Test"}}`, ResultBW, ErrTruncated},
		{"missing field", "{\nresults: {\nMsgSize: 2,\nBW_average: 3,\n},\n}\n", ResultBW, ErrParse},
		{"bad number", "{\nresults: {\nMsgSize: 2,\nn_iterations: 2,\nt_min: 1x,\nt_max: 1,\n},\n}\n", ResultLat, ErrParse},
		{"not a pair", "{\ntest_info: {\ngarbage\n}\n}\n", ResultUnknown, ErrParse},
		{"not json", "hello", ResultUnknown, ErrUnrecognized},
		{"empty object", "{}", ResultUnknown, ErrTruncated},
		{"truncated", "{\"test_info\": {\"test\": \"Send_BW_", ResultUnknown, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseJSON(strings.NewReader(tt.in))
			if !errors.Is(err, tt.is) && !(tt.is == nil && err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if res.Kind != tt.kind {
				t.Errorf("kind = %v, want %v", res.Kind, tt.kind)
			}
		})
	}
}

func TestJSONTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Send_BW_Test":                     "Send BW Test",
		"RDMA_Write_Bidirectional_BW_Test": "RDMA_Write Bidirectional BW Test",
		"RDMA_Write_imm_Post_List_BW_Test": "RDMA_Write_imm Post List BW Test",
		"Atomic_CMP_AND_SWAP_Latency_Test": "Atomic CMP_AND_SWAP Latency Test",
		"RDMA_Read_Latency_Test":           "RDMA_Read Latency Test",
		"Send_imm_BW_Test":                 "Send_imm BW Test",
		"Something_New_Test":               "Something New Test",
	} {
		if got := jsonTitle(in); got != want {
			t.Errorf("jsonTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
