package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/blsim/blsim/measure"
)

// RunFile runs cfg (Run) into the measurements file path, appending every
// run as soon as it ends, and prints its lines on w: Config.Header first,
// Config.LineProgress's line per run, Summary.Line last. With resume, the
// points path holds already (measure.Done) are skipped. A nil cfg.Host is
// this machine's architecture and host name. The errors are Run's, and
// those of opening, locking and closing path.
func RunFile(ctx context.Context, cfg Config, path string, resume bool, w io.Writer) (Summary, error) {
	if cfg.Host == nil {
		cfg.Host = &measure.Host{Arch: runtime.GOARCH}
		cfg.Host.Name, _ = os.Hostname()
	}
	if resume {
		done, err := measure.Done(path)
		if err != nil {
			return Summary{}, err
		}
		cfg.Done = done
	}
	mw, err := measure.Create(path)
	if err != nil {
		return Summary{}, err
	}
	fmt.Fprintln(w, cfg.Header(path))
	sum, err := Run(ctx, cfg, mw, cfg.LineProgress(w))
	if cerr := mw.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("measurements %s: %w", path, cerr)
	}
	fmt.Fprintln(w, sum.Line(path))
	return sum, err
}
