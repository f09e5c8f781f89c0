package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// A Run is a calibration of this machine by the built-in dispatcher: what
// to measure, on which clusters, and where the measurements go.
type Run struct {
	// Settings say what to measure. Open finds the Engines (from the
	// clusters) and the Host when they are empty.
	Settings
	// Clusters, as NAME=CPUS (topology.Override), replace the clusters
	// found, the first being the main engine; nil keeps them.
	Clusters []string
	// SysRoot is the root of the sysfs and procfs trees the topology and
	// the governors are read from; "" is "/".
	SysRoot string
	// Path is the measurements file each measurement is appended to as
	// soon as it is taken.
	Path string
	// Resume continues Path, skipping the steps it holds; without it, a
	// Path that holds anything is ErrMeasured.
	Resume bool
}

// A Calibration is a Run under way: Open has checked its settings and
// found its engines and host, Start lists its steps and opens its file,
// Measure takes them.
type Calibration struct {
	Run
	// Warnings are about the cpufreq and devfreq governors that are not
	// "performance" (topology.NonPerformance): fix them before measuring.
	Warnings []string
	// Steps are what Measure takes, and Done the IDs of those Path holds
	// already (measure.Done); both set by Start.
	Steps []Step
	Done  map[string]bool
	// Announce, when not nil, is told the dispatcher grid's time once the
	// microbenchmarks are in (the package's Announce) and, once Measure
	// ends, the process's peak resident memory (PeakRSS).
	Announce func(line string)

	w   *measure.Writer
	res *resident // the dispatcher's weights, released when Measure ends
}

// Errors of Open and Start.
var (
	// ErrNoCluster: the topology has no CPU cluster and Run.Clusters
	// names none.
	ErrNoCluster = errors.New("calibrate: found no CPU cluster")
	// ErrMeasured: Run.Path holds measurements and Run.Resume is not set.
	ErrMeasured = measure.ErrMeasured
	// ErrOtherClusters: Run.Resume continues a Path whose records were
	// measured on other clusters than the run's (measure.Host.Clusters):
	// one fit of both would give one machine's runs the other's prior.
	ErrOtherClusters = errors.New("measured on other clusters")
)

// Open checks r's settings and finds what it calibrates: the engines
// (topology.Discover under r.SysRoot, then r.Clusters) and the host (Host),
// unless r gives them; the host then records the engines' clusters
// (measure.Host.Clusters). Errors are a *model.SettingError (its Setting a field of Run: Grid,
// Repeats, Rounds or Clusters), ErrNoCluster, or
// topology.Discover's.
func Open(r Run) (*Calibration, error) {
	if g := r.Grid; g != "" && g != FitGrid && g != HeldOutGrid && g != BothGrids {
		return nil, &model.SettingError{Setting: "Grid", Err: fmt.Errorf("%q is not fit, heldout or fit+heldout", g)}
	}
	if err := model.RepeatsRange.Check(r.Repeats); err != nil {
		return nil, &model.SettingError{Setting: "Repeats", Err: err}
	}
	if err := model.RoundsRange.Check(r.Rounds); err != nil {
		return nil, &model.SettingError{Setting: "Rounds", Err: err}
	}
	root := cmp.Or(r.SysRoot, "/")
	if len(r.Engines) == 0 {
		cs, err := clusters(root, r.Clusters)
		if err != nil {
			return nil, err
		}
		r.Engines = NewEngines(cs)
	}
	if r.Host == nil {
		r.Host = Host(root)
	}
	// Each record names the clusters, whose cores, clock and caches the
	// prior is built from: a refit of the file (RecordedEngines) starts
	// from the same prior.
	r.Host = withClusters(r.Host, r.Engines)
	return &Calibration{Run: r, Warnings: topology.NonPerformance(r.Host.Governors)}, nil
}

// clusters are the CPU clusters under root, or the ones specs name.
func clusters(root string, specs []string) ([]topology.Cluster, error) {
	t, err := topology.Discover(root)
	if err != nil {
		return nil, err
	}
	if len(specs) > 0 {
		allowed, err := probe.AllowedCPUs()
		if err != nil {
			return nil, &model.SettingError{Setting: "Clusters", Err: err}
		}
		if t, err = topology.Override(t, specs, allowed); err != nil {
			return nil, &model.SettingError{Setting: "Clusters", Err: err}
		}
	}
	if len(t.Clusters) == 0 {
		return nil, ErrNoCluster
	}
	return t.Clusters, nil
}

// Start lists the steps (Steps, which sets the default workload) and opens
// Path for appending, locked against other writers until Measure ends,
// and only then reads which steps it holds already (measure.OpenAppend:
// without Resume, a Path that holds anything is ErrMeasured; with it, one
// the rule for bad lines refuses is an error before anything is measured,
// and its bad lines are Warnings; one whose records name other clusters
// than the run's is ErrOtherClusters). It refuses (ErrMemory) steps that need
// more memory at once than the system has available (CheckMemory, on the
// meminfo under SysRoot).
func (c *Calibration) Start() error {
	steps, res, err := stepsOf(&c.Settings)
	if err != nil {
		return err
	}
	var warnings []string
	if c.w, c.Done, warnings, err = measure.OpenAppend(c.Path, c.Resume); err != nil {
		return err
	}
	unchecked, err := c.sameClusters()
	if err != nil {
		c.w.Close()
		c.w = nil
		return err
	}
	if unchecked != "" {
		warnings = append(warnings, unchecked)
	}
	// Refused before anything is measured, rather than swapping (and
	// timing the swap) mid-way.
	warning, err := CheckMemory(&c.Settings, steps, c.Done, cmp.Or(c.SysRoot, "/"))
	if err != nil {
		c.w.Close()
		c.w = nil
		return err
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	c.Warnings = append(c.Warnings, warnings...)
	c.Steps, c.res = steps, res
	return nil
}

// Header is the line to print before Measure (the package's Header).
func (c *Calibration) Header() string { return Header(&c.Settings, c.Steps, c.Done, c.Path) }

// Measure takes the steps Start listed that Path does not hold yet,
// appending each measurement to it at once (the package's Measure), tells
// progress (nil: nobody) of each and, at the end, calls it with total 0,
// releases the dispatcher's weights, announces the peak resident memory
// and closes Path. It returns the measurements it took; when ctx is done,
// those and ctx's error.
func (c *Calibration) Measure(ctx context.Context, progress measure.Progress) ([]measure.Measurement, error) {
	if c.w == nil {
		return nil, errors.New("calibrate: Measure before Start")
	}
	defer c.w.Close()
	announce := func(taken []measure.Measurement) {
		if c.Announce == nil {
			return
		}
		ms, _ := measure.ReadFile(c.Path) // the microbenchmarks a resumed file holds, and those just taken
		if len(ms) == 0 {
			ms = taken
		}
		if line := Announce(c.Steps, c.Done, Prior("estimate", c.Engines, ms, c.Workload)); line != "" {
			c.Announce(line)
		}
	}
	taken, err := measureSteps(ctx, c.Steps, c.Done, c.w, c.Host, progress, busy.NewPolicy(c.Reruns), announce)
	if progress != nil {
		progress(0, 0, "", nil)
	}
	c.res.drop()
	if peak, perr := PeakRSS(); perr == nil && c.Announce != nil {
		c.Announce(fmt.Sprintf("peak resident memory %s (VmHWM: the most this process has held at once)", GiB(peak)))
	}
	return taken, err
}

// sameClusters is nil unless a resumed Path holds records measured on
// other clusters than c's (ErrOtherClusters, naming both). When none of
// its records names its clusters (a file written before blsim recorded
// them), nothing can be checked, and the line returned says so.
func (c *Calibration) sameClusters() (unchecked string, err error) {
	if !c.Resume || len(c.Done) == 0 || c.Host == nil || len(c.Host.Clusters) == 0 {
		return "", nil
	}
	ms, _ := measure.ReadFile(c.Path)
	for _, m := range ms {
		if m.Host == nil || len(m.Host.Clusters) == 0 {
			continue
		}
		if reflect.DeepEqual(m.Host.Clusters, c.Host.Clusters) {
			return "", nil
		}
		return "", fmt.Errorf("%s holds runs %w (%s, record %s) than this calibration's (%s): resume it with the same clusters, or name another file",
			c.Path, ErrOtherClusters, clusterList(m.Host.Clusters), m.ID, clusterList(c.Host.Clusters))
	}
	return fmt.Sprintf("%s: its records name no clusters (written before blsim recorded them), so they cannot be checked against this calibration's (%s): resume only on the clusters they were measured on",
		c.Path, clusterList(c.Host.Clusters)), nil
}
