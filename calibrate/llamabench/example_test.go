package llamabench_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/blsim/blsim/calibrate/llamabench"
)

func ExampleParse() {
	const out = `| model                          |       size |     params | backend    | threads |            test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | ------: | --------------: | -------------------: |
| qwen35moe 35B.A3B Q4_K - Medium |  19.71 GiB |    34.66 B | CPU        |       4 |           pp512 |         26.26 ± 0.12 |
| qwen35moe 35B.A3B Q4_K - Medium |  19.71 GiB |    34.66 B | CPU        |       4 |   pp512 @ d1024 |         22.42 ± 0.08 |

build: 0104b151 (7950)
`
	recs, errs := llamabench.Parse(strings.NewReader(out), "rk3588.md", llamabench.Auto)
	for _, r := range recs {
		fmt.Printf("%s: %d threads, pp%d at depth %d: %.2f ± %.2f t/s (build %s, %d)\n",
			r.ModelType, r.NThreads, r.NPrompt, r.NDepth, r.AvgTS, r.StddevTS, r.BuildCommit, r.BuildNumber)
	}
	fmt.Println(len(errs), "errors")
	// Output:
	// qwen35moe 35B.A3B Q4_K - Medium: 4 threads, pp512 at depth 0: 26.26 ± 0.12 t/s (build 0104b151, 7950)
	// qwen35moe 35B.A3B Q4_K - Medium: 4 threads, pp512 at depth 1024: 22.42 ± 0.08 t/s (build 0104b151, 7950)
	// 0 errors
}

func ExampleReader_Next() {
	const out = `{"n_threads": 4, "cpu_mask": "0xf0", "n_prompt": 512, "n_gen": 0, "avg_ts": 26.260000}
llama_perf_context_print: load time = 5612.33 ms
{"n_threads": 8, "cpu_mask": "0x0", "n_prompt": 512, "n_gen": 0, "samples_ns": [ 26861694211 ],"samples_ts": [ 19.0606 ]}
{"n_threads": 8, "n_prompt": 512}
`
	rd := llamabench.NewReader(strings.NewReader(out), "sweep.jsonl", llamabench.Auto)
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("skipped:", err)
			continue
		}
		fmt.Printf("line %d: %d threads on %s: %.2f t/s\n", r.Line, r.NThreads, r.CPUMask, r.AvgTS)
	}
	// Output:
	// line 1: 4 threads on 0xf0: 26.26 t/s
	// skipped: sweep.jsonl:2: not a JSON object: "llama_perf_context_print: load time = 56"...
	// line 3: 8 threads on 0x0: 19.06 t/s
	// skipped: sweep.jsonl:4: no usable throughput: avg_ts missing or not positive, and no samples
}

func ExampleWrite() {
	rec := llamabench.Record{
		BuildCommit: "b1s1m000", BuildNumber: 1, Backends: "CPU",
		ModelType: "qwen35moe 35B.A3B Q4_K - Medium", ModelSizeBytes: 21163225088, ModelParams: 34660610048,
		NBatch: 2048, NUbatch: 512, NThreads: 4, CPUMask: "0xf0", CPUStrict: true, Poll: 50,
		NPrompt: 512, AvgTS: 26.26, StddevTS: 0.12,
	}
	little := rec
	little.CPUMask, little.AvgTS, little.StddevTS = "0x0f", 7.5, 0.25
	llamabench.Write(os.Stdout, llamabench.Markdown, []llamabench.Record{rec, little})
	// Output:
	// | model                          |       size |     params | backend    | threads | cpu_mask   | cpu_strict |            test |                  t/s |
	// | ------------------------------ | ---------: | ---------: | ---------- | ------: | ---------- | ---------: | --------------: | -------------------: |
	// | qwen35moe 35B.A3B Q4_K - Medium |  19.71 GiB |    34.66 B | CPU        |       4 | 0xf0       |          1 |           pp512 |         26.26 ± 0.12 |
	// | qwen35moe 35B.A3B Q4_K - Medium |  19.71 GiB |    34.66 B | CPU        |       4 | 0x0f       |          1 |           pp512 |          7.50 ± 0.25 |
	//
	// build: b1s1m000 (1)
}
