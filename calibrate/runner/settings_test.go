package runner

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/model"
)

// TestSettingsConfig: the grid file gives the defaults, the settings add
// axes and win over its run settings where given.
func TestSettingsConfig(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	os.WriteFile(grid, []byte("command: llama-bench -p 512\nenv: {ORK_BL_POLL: [0, 50]}\ntimeout_s: 5\nwarmup: 2\nretries: 1\n"+
		"rounds: 3\nshuffle: true\nholdout: [ORK_BL_POLL=0]\n"), 0o644)
	knobs := filepath.Join(dir, "knobs.yaml")
	os.WriteFile(knobs, []byte("little_frac: MY_FRAC\nengines: {big: p, little: e}\n"), 0o644)

	cfg, holdout, err := Settings{GridFile: grid}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Grid.Size() != 2 || cfg.Timeout != 5*time.Second || cfg.Warmup != 2 || cfg.Retries != 1 || cfg.Rounds != 3 || !cfg.Shuffle ||
		len(holdout) != 1 || holdout[0] != "ORK_BL_POLL=0" || cfg.Mapping.LittleFrac[0] != "ORK_BL_LITTLE_FRAC" {
		t.Errorf("grid file alone: %+v, holdout %q", cfg, holdout)
	}
	zero, no := 0, false
	cfg, _, err = Settings{GridFile: grid, Env: []string{"MY_FRAC=0,0.5"}, Retries: &zero, Rounds: &zero, Shuffle: &no, Knobs: knobs}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Grid.Size() != 4 || cfg.Timeout != 5*time.Second || cfg.Warmup != 2 || cfg.Retries != 0 || cfg.Rounds != 0 || cfg.Shuffle ||
		cfg.Mapping.Engines.Big != "p" {
		t.Errorf("grid file and settings: %+v", cfg)
	}
	cfg, _, err = Settings{Command: "llama-bench -m 'my model.gguf'", Args: []string{"-t=4"}}.Config()
	if err != nil || len(cfg.Grid.Command) != 3 || cfg.Grid.Command[2] != "my model.gguf" || cfg.Timeout != DefaultTimeout || cfg.Grid.Size() != 1 {
		t.Errorf("command alone: %+v, %v", cfg, err)
	}

	neg, zeroTime := -1, time.Duration(0)
	huge, thousand := math.MaxInt, 1000
	for _, tc := range []struct {
		name    string
		s       Settings
		is      error
		setting string // of the *SettingError, if one
		msg     string
	}{
		{"no command", Settings{}, ErrNoCommand, "", ""},
		{"two commands", Settings{GridFile: grid, Command: "b"}, ErrTwoCommands, "", ""},
		{"unbalanced quote", Settings{Command: "'unbalanced"}, nil, "Command", "unterminated"},
		{"zero timeout", Settings{Command: "b", Timeout: &zeroTime}, nil, "Timeout", "Timeout 0s: must be positive"},
		{"negative warmup", Settings{Command: "b", Warmup: &neg}, nil, "Warmup", "Warmup: -1 is negative"},
		{"negative retries", Settings{Command: "b", Retries: &neg}, nil, "Retries", "Retries: -1 is negative"},
		// One range for flags and grid files: a mistyped --rounds is refused
		// before its schedule is laid out (issue 31: 10^8 rounds grew to
		// 6.1 GB, 2^63-1 panicked in makeslice).
		{"rounds past the range", Settings{Command: "b", Rounds: &huge}, nil, "Rounds", "Rounds: 9223372036854775807 is outside [0, 1000] for rounds"},
		{"runs past MaxPoints", Settings{Command: "b", Env: []string{"A=1:200:1"}, Rounds: &thousand}, nil, "Rounds", "1000 rounds of 200 points are 200000 runs, over the limit of 100000"},
		{"negative rounds", Settings{Command: "b", Rounds: &neg}, nil, "Rounds", "Rounds: -1 is negative"},
		{"env twice", Settings{GridFile: grid, Env: []string{"ORK_BL_POLL=1"}}, nil, "", "given twice"},
		{"bad env", Settings{Command: "b", Env: []string{"NOVALUE"}}, nil, "", "NAME=VALUES"},
		{"missing grid file", Settings{GridFile: filepath.Join(dir, "none.yaml")}, nil, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.s.Config()
			var se *model.SettingError
			switch {
			case err == nil:
				t.Fatal("no error")
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("%v, want %v", err, tc.is)
			case errors.As(err, &se) != (tc.setting != "") || (se != nil && se.Setting != tc.setting):
				t.Errorf("%v (%T), want a *model.SettingError of %q", err, err, tc.setting)
			case !strings.Contains(err.Error(), tc.msg):
				t.Errorf("%v, want %q in it", err, tc.msg)
			}
		})
	}
}
