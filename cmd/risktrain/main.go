// Command risktrain rebuilds the risk screen's trained layer from the data
// in the repository (extract/riskml/data, and Mnemo's own risk set) and
// prints its figures on the development split the thresholds were set on:
//
//	go run ./cmd/risktrain                # writes extract/riskml/weights.bin
//	go run ./cmd/risktrain -check         # fails if the shipped weights differ
//
// The same data gives the same bytes; TestShippedWeightsAreRebuilt holds
// the shipped file to it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mnemo-ai/mnemo/extract/riskml"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	out := flag.String("out", filepath.Join("extract", "riskml", "weights.bin"), "where to write the weights, under root")
	check := flag.Bool("check", false, "only compare the built weights with the file at -out")
	flag.Parse()
	if err := run(*root, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "risktrain:", err)
		os.Exit(1)
	}
}

func run(root, out string, check bool) error {
	ex, left, err := riskml.LoadData(root)
	if err != nil {
		return err
	}
	b, meta, err := riskml.Train(ex, riskml.Options{})
	if err != nil {
		return err
	}
	path := filepath.Join(root, out)
	if check {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, b) {
			return fmt.Errorf("%s differs from what the data builds: run go run ./cmd/risktrain", path)
		}
		fmt.Println("the shipped weights are what the data builds")
		return nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	srcs := make([]string, 0, len(meta.TrainedOn))
	for s := range meta.TrainedOn {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	fmt.Printf("examples: %d (%d left out as repeats of a held-out item)\n", len(ex), left)
	for _, s := range srcs {
		fmt.Printf("  trained on %-18s %6d\n", s, meta.TrainedOn[s])
	}
	th, _ := json.Marshal(meta.Threshold)
	fmt.Printf("thresholds %s, acute %.3f, temperature %.2f\n", th, meta.AcuteThreshold, meta.Temperature)
	d := meta.Dev
	fmt.Printf("development split (%d positives, %d negatives, never trained on):\n", d.Positives, d.Negatives)
	fmt.Printf("  recall, any finding  %.3f\n  recall, right class  %.3f\n  high on high items   %.3f\n  precision of high    %.3f\n  false alarms         %.3f\n  false alarms, high   %.3f\n",
		d.Recall, d.ClassOK, d.HighRecall, d.HighPrec, d.FalseAlarms, d.HighFalseAlm)
	fmt.Printf("wrote %s (%d bytes)\n", path, len(b))
	return nil
}
