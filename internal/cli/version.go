package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Finish adds what every blsim has beside its own commands: version, man,
// shell completion of presets, plot kinds, split modes, tests and
// statistics (BlsimCompletions) and the --help examples of Examples
// (TestEveryCommandHasExamples in cmd/blsim checks each path).
func Finish(root *cobra.Command, w io.Writer, plotKinds []string) {
	root.AddCommand(NewVersionCmd(w, root.Version), NewManCmd(w, root))
	BlsimCompletions(plotKinds).Register(root)
	_ = AddExamples(root, Examples)
}

// NewVersionCmd is `blsim version`: the line --version prints.
func NewVersionCmd(w io.Writer, version string) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print blsim's version, the VCS revision it was built from and the Go version",
		Example: "  blsim version",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(w, version)
			return err
		},
	}
}

// NewManCmd is `blsim man DIR`: a man page (section 1) for root and each
// command under it, written into DIR (created if missing) by cobra's
// doc generator. A page is dated by the VCS time of the build when it has
// one, so that the pages of one build are the same bytes.
func NewManCmd(w io.Writer, root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write man pages for blsim and every command into DIR",
		Example: "  blsim man ./man && man ./man/blsim-predict.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return WriteMan(w, root, args[0])
		},
	}
}

// WriteMan writes root's man pages into dir and says how many on w.
func WriteMan(w io.Writer, root *cobra.Command, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("man: %s is a file, not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man: %w", err)
	}
	header := &doc.GenManHeader{Title: "BLSIM", Section: "1", Source: "blsim", Manual: "blsim manual"}
	if t, ok := buildTime(); ok {
		header.Date = &t
	}
	root.DisableAutoGenTag = true
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("man: %w", err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	_, err := fmt.Fprintf(w, "wrote %d man pages into %s\n", len(pages), dir)
	return err
}

// buildTime is the VCS time the binary was built from, if it says.
func buildTime() (time.Time, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return time.Time{}, false
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			t, err := time.Parse(time.RFC3339, s.Value)
			return t, err == nil
		}
	}
	return time.Time{}, false
}
