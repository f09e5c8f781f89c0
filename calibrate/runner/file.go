package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/measure"
)

// RunFile runs cfg (Run) into the measurements file path, appending every
// run as soon as it ends, and prints its lines on w: Config.Header first,
// Config.LineProgress's line per run, Summary.Line last. With resume, the
// points path holds already are skipped. A nil cfg.Host is
// this machine's architecture and host name. The errors are Run's, and
// those of opening, locking and closing path: measure.OpenAppend takes the
// lock before it reads what is done, and refuses a file that holds runs
// without resume (measure.ErrMeasured), or one the one rule for bad lines
// refuses with it. path must not be a file the command names (its model,
// say): guardCommand.
func RunFile(ctx context.Context, cfg Config, path string, resume bool, w io.Writer) (Summary, error) {
	if cfg.Host == nil {
		cfg.Host = &measure.Host{Arch: runtime.GOARCH}
		cfg.Host.Name, _ = os.Hostname()
	}
	if err := cfg.guardCommand(path); err != nil {
		return Summary{}, err
	}
	mw, done, warnings, err := measure.OpenAppend(path, resume)
	if err != nil {
		return Summary{}, err
	}
	cfg.Done = done
	for _, warn := range warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintln(w, cfg.Header(path))
	sum, err := Run(ctx, cfg, mw, cfg.LineProgress(w))
	if cerr := mw.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("measurements %s: %w", path, cerr)
	}
	fmt.Fprintln(w, sum.Line(path))
	return sum, err
}

// guardCommand refuses a measurements file that is one of the files the
// command's words or knob values name (llama-bench -m model.gguf): the
// runs would be appended to it.
func (cfg *Config) guardCommand(path string) error {
	var words []string
	words = append(words, cfg.Grid.Command...)
	for _, a := range append(append([]Axis(nil), cfg.Grid.Env...), cfg.Grid.Args...) {
		words = append(words, a.Values...)
	}
	if in := atomicfile.SameAsAny(path, words); in != "" {
		return fmt.Errorf("measurements %s: the benchmark command names it (%s); name another file", path, in)
	}
	return nil
}
