package main

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/report"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
)

// predictOptions are the flags of `blsim predict`.
type predictOptions struct {
	cli.RequestFlags
	Sweep       bool
	JSON        bool
	Output      string // -o: text, md, csv, json or jsonl
	Sensitivity bool
	// ThreadsSweep: stock llama.cpp's one pool at each -t and cluster set.
	ThreadsSweep bool
}

func newPredictCmd(stdout, stderr io.Writer, runF func(*predictOptions) error) *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict native vs split throughput, the best split and the verdict",
		Long: `Predict prompt-processing throughput of a workload on a SoC: natively on the
first (big) engine, and with the routed-expert ops split between the first and
second engines by tokens or by experts, at the requested little fraction and at
the best one. The verdict (WIN / PARITY / LOSS) is judged against the
prediction's own uncertainty. With no flags: the seed experiment (rk3588,
qwen3.5-35b-a3b, pp512, 4+4 threads, poll 50, fraction 0.12).

--engines names the split's engines, main first, e.g. big,little,npu on a
SoC with an NPU or big,mid,little on a three-cluster SoC. With more than two
engines, or an accelerator among them, the best fractions are found over the
whole simplex (sim.BestN: a Nelder-Mead search on every face), and --frac
takes one share per engine after the first ("0.1,0.3") or auto (the
default then). --sensitivity adds a sweep of the accelerator's throughput
and submit latency: where the split turns from LOSS to WIN.

The same flags mean the same in blsim plot and blsim report. Values of the
SoC that cannot matter to the prediction get a warning on stderr.

llama-bench's table: -t (one pool's total threads, placed as the OS places
-t N), a list or range in -p, -n, -ub, -t, --poll, --soc or --workload, or
-n beside a prompt make one row per combination, as llama-bench runs them,
each beside the split's best plan (docs/llama-bench.md).

Verdicts (one rule for the table, the headline, the heatmap, --sensitivity,
the thread sweep and blsim report; docs/verdicts.md):
` + sim.VerdictRule + "\n\n" + sim.IntervalRule,
		Example: `  blsim predict
  blsim predict -p 128,512 -n 128 -t 4,8 -o md
  blsim predict --soc rk3588,pi5 -ub 128,256,512 --poll 0,50 -o csv
  blsim predict --soc rk3588-npu --engines big,npu --sensitivity
  blsim predict --soc cix-p1 --split token --engines big,mid,little`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return predictRun(o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	o.Register(f)
	addGGUFFlag(cmd, &o.Workload)
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, md, csv, json or jsonl (llama-bench's -o; md, csv and jsonl are the table's)")
	f.BoolVar(&o.Sweep, "sweep", false, "also print t/s for little fractions 0 to 0.5")
	f.BoolVar(&o.JSON, "json", false, "-o json: the prediction as JSON (schema "+predict.Schema+"; the table's "+predict.BenchSchema+")")
	f.BoolVar(&o.Sensitivity, "sensitivity", false, "with an accelerator in --engines: sweep its throughput and submit latency (LOSS to WIN)")
	f.BoolVar(&o.ThreadsSweep, "threads-sweep", false, "stock llama.cpp's one thread pool at each thread count on every cluster, fastest first, then the SMT siblings,\nand unpinned as --placement's OS puts -t N: pp and tg (--gen, default 128) t/s, and the -t, -tb and --cpu-mask to run")
	return cmd
}

func predictRun(o *predictOptions, stdout, stderr io.Writer) error {
	o.Progress = stderr
	format, err := report.ParseFormat(o.Output)
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if o.JSON {
		format = report.FormatJSON
	}
	if o.ThreadsSweep {
		return threadsSweep(o, format, stdout)
	}
	if o.Given("placement") && !o.Given("threads") {
		return fmt.Errorf("--placement: it places -t N (predict's table) and a thread sweep's unpinned pools; add -t or --threads-sweep (the split's threads are pinned)")
	}
	if o.Table() || format == report.FormatMD || format == report.FormatCSV || format == report.FormatJSONL {
		for _, f := range []string{"sweep", "sensitivity"} {
			if o.Given(f) {
				return fmt.Errorf("--%s: predict's table (-t, lists, -n beside a prompt, -o md|csv|jsonl) does not take it", f)
			}
		}
		q, err := o.Bench()
		if err != nil {
			return err
		}
		b, err := o.RunBench(q)
		if err != nil {
			return err
		}
		return report.BenchTable(stdout, b, format)
	}
	q, err := o.Request()
	if err != nil {
		return err
	}
	q.Sweep, q.Sensitivity = o.Sweep, o.Sensitivity
	p, err := o.Run(q)
	if err != nil {
		return err
	}
	cli.Warn(stderr, p, o.SoC)
	if format == report.FormatJSON {
		return cli.WriteJSON(stdout, p)
	}
	return report.Table(stdout, p)
}

// threadsSweep is predict --threads-sweep: every pool, and what to run.
func threadsSweep(o *predictOptions, format report.Format, stdout io.Writer) error {
	for _, f := range []string{"engines", "threads", "engine-threads", "big-threads", "little-threads", "split", "frac", "draws", "sweep", "sensitivity", "test"} {
		if o.Given(f) {
			return fmt.Errorf("--%s: --threads-sweep tries every thread count on every cluster, for pp and tg both; leave --%s out", f, f)
		}
	}
	q, err := o.Request()
	if err != nil {
		return err
	}
	t, err := predict.ThreadsBeside(q, o.OwnRun, nil)
	if err != nil {
		return o.FlagError(err, q)
	}
	return report.ThreadsOut(stdout, t, format)
}
