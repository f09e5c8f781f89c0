package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/blsim/blsim/model"
)

// Settings are what a run of a benchmark grid is made from, as a user gives
// them: an optional grid file, and the command, axes and run settings
// given beside it, which add to the file's and win over them.
type Settings struct {
	// GridFile is a YAML grid file (ParseGridFile); "" is none.
	GridFile string
	// Command is the command line, split by SplitCommand; "" takes the
	// grid file's. Giving both is ErrTwoCommands; neither, ErrNoCommand.
	Command string
	// Env and Args are axes added to the grid file's: "NAME=VALUES"
	// (ParseEnvAxis) and "-FLAG=VALUES" (ParseArgAxis).
	Env, Args []string
	// Knobs is a YAML knob mapping file (LoadMapping); "" is
	// DefaultMapping.
	Knobs string
	// Timeout, Warmup, Retries, Rounds and Shuffle, when not nil, win over
	// the grid file's; else the file's count, and without it the
	// defaults: DefaultTimeout, no warm-up, no retry, one round, no
	// shuffle.
	Timeout                 *time.Duration
	Warmup, Retries, Rounds *int
	Shuffle                 *bool
}

// Errors of Settings.Config about the command.
var (
	ErrTwoCommands = errors.New("runner: a command in the settings and another in the grid file")
	ErrNoCommand   = errors.New("runner: no benchmark command, neither in the settings nor in a grid file")
)

// Config is the configuration Run takes, from the grid file and the
// settings, and the grid file's holdout patterns (GridFile.Holdout). Its
// errors are the grid file's, the knob mapping's and the axes' own,
// ErrTwoCommands, ErrNoCommand, Grid.Validate's, or a *model.SettingError
// whose Setting is the field of Settings (Command, Timeout, Warmup,
// Retries or Rounds).
func (s Settings) Config() (cfg Config, holdout []string, err error) {
	cfg.Timeout = DefaultTimeout
	if s.GridFile != "" {
		gf, err := LoadGridFile(s.GridFile)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Grid, holdout = gf.Grid, gf.Holdout
		if gf.Timeout > 0 {
			cfg.Timeout = gf.Timeout
		}
		cfg.Warmup, cfg.Retries, cfg.Rounds, cfg.Shuffle = gf.Warmup, gf.Retries, gf.Rounds, gf.Shuffle
	}
	if s.Command != "" {
		if len(cfg.Grid.Command) > 0 {
			return cfg, nil, ErrTwoCommands
		}
		words, err := SplitCommand(s.Command)
		if err != nil {
			return cfg, nil, &model.SettingError{Setting: "Command", Err: err}
		}
		cfg.Grid.Command = words
	}
	if len(cfg.Grid.Command) == 0 {
		return cfg, nil, ErrNoCommand
	}
	for _, spec := range s.Env {
		a, err := ParseEnvAxis(spec)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Grid.Env = append(cfg.Grid.Env, a)
	}
	for _, spec := range s.Args {
		a, err := ParseArgAxis(spec)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Grid.Args = append(cfg.Grid.Args, a)
	}
	if err := cfg.Grid.Validate(); err != nil {
		return cfg, nil, err
	}
	set(&cfg.Timeout, s.Timeout)
	set(&cfg.Warmup, s.Warmup)
	set(&cfg.Retries, s.Retries)
	if cfg.Timeout <= 0 {
		return cfg, nil, &model.SettingError{Setting: "Timeout", Value: cfg.Timeout.String(), Err: errors.New("must be positive")}
	}
	cfg.Mapping = DefaultMapping()
	if s.Knobs != "" {
		if cfg.Mapping, err = LoadMapping(s.Knobs); err != nil {
			return cfg, nil, err
		}
	}
	set(&cfg.Rounds, s.Rounds)
	set(&cfg.Shuffle, s.Shuffle)
	if err := cfg.checkCounts(); err != nil {
		return cfg, nil, err
	}
	return cfg, holdout, nil
}

// set sets *v to *given when given is not nil.
func set[T any](v *T, given *T) {
	if given != nil {
		*v = *given
	}
}

// The ranges of a grid's counts, for flags and grid files alike.
var (
	warmupRange  = model.IntRange{Min: 0, Max: 1000, What: "warm-up runs"}
	retriesRange = model.IntRange{Min: 0, Max: 1000, What: "retries"}
)

// checkCounts checks the warm-ups, retries and rounds by their ranges, and
// that the runs they make (points x rounds) are at most MaxPoints, before
// anything is laid out: a mistyped --rounds would otherwise allocate its
// schedule first. Errors are *model.SettingError.
func (cfg *Config) checkCounts() error {
	for _, c := range []struct {
		setting string
		v       int
		r       model.IntRange
	}{{"Warmup", cfg.Warmup, warmupRange}, {"Retries", cfg.Retries, retriesRange}, {"Rounds", cfg.Rounds, model.RoundsRange}} {
		if err := c.r.Check(c.v); err != nil {
			return &model.SettingError{Setting: c.setting, Err: err}
		}
	}
	if n, runs := cfg.Grid.Size(), max(cfg.Rounds, 1)*cfg.Grid.Size(); runs > MaxPoints {
		return &model.SettingError{Setting: "Rounds", Err: fmt.Errorf("%d rounds of %d points are %d runs, over the limit of %d", max(cfg.Rounds, 1), n, runs, MaxPoints)}
	}
	return nil
}
