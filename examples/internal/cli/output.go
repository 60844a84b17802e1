package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// WriteFile is workflow.WriteFile: dir/name written whole or not at all.
func WriteFile(dir, name string, write func(io.Writer) error) (string, error) {
	return workflow.WriteFile(dir, name, write)
}

// PairFiles is workflow.PairFiles.
func PairFiles(r *report.Round, pairs []*perftest.PairResult) []report.ArchiveFile {
	return workflow.PairFiles(r, pairs)
}

// PairsFiles is workflow.PairsFiles.
func PairsFiles(r *report.Round, ps runbook.Pairs) ([]report.ArchiveFile, error) {
	return workflow.PairsFiles(r, ps)
}

// SaveArchive is workflow.SaveArchive.
func SaveArchive(dir string, r report.Round, files []report.ArchiveFile) (string, error) {
	return workflow.SaveArchive(dir, r, files)
}

// KeepFailedPair is workflow.KeepFailedPair.
func KeepFailedPair(dir, name string, p *perftest.PairResult) error {
	return workflow.KeepFailedPair(dir, name, p)
}

// KeepFailedPairs is workflow.KeepFailedPairs.
func KeepFailedPairs(dir, prefix string, pairs []*perftest.PairResult) error {
	return workflow.KeepFailedPairs(dir, prefix, pairs)
}

// RepeatPairKeepFailed is runbook.RepeatPair that keeps the outputs of
// the pair that stopped the runs in out/failed/LABEL-N/ (spaces in label
// become dashes) when out is set. The soft-RoCE examples use
// workflow.RunPerftest, which does this and the rest of a step.
func RepeatPairKeepFailed(ctx context.Context, sides *runbook.Sides, far runbook.RXE, opts perftest.Options, count int, prog runbook.Progress, label, out string) (runbook.Pairs, error) {
	ps, err := runbook.RepeatPair(ctx, sides, far, opts, count, prog, label)
	if err != nil && out != "" {
		name := fmt.Sprintf("%s-%d", strings.ReplaceAll(label, " ", "-"), len(ps.Pairs)+1)
		err = errors.Join(err, KeepFailedPair(out, name, ps.Stopped))
	}
	return ps, err
}

// WriteRoundsMarkdown prints the tail of a step example's report: the
// rounds side by side, the findings, and each round against the store's
// previous one of its name (the store holds this run's rounds too;
// report.WriteAgainstPrevious takes earlier ones).
func WriteRoundsMarkdown(w io.Writer, store string, rounds []report.Round, findings []report.Finding) error {
	fmt.Fprintf(w, "## Rounds side by side\n\n")
	if err := report.WriteSideBySideMarkdown(w, rounds); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## Findings\n\n")
	report.WriteFindingsMarkdown(w, findings)
	fmt.Fprintln(w)
	return report.WriteAgainstPrevious(w, report.OpenStore(store), rounds)
}
