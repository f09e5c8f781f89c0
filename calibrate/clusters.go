package calibrate

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// withClusters is h with es's clusters recorded (measure.Host.Clusters),
// a copy: the caller's Host is not changed. A host that records clusters
// already keeps them.
func withClusters(h *measure.Host, es []Engine) *measure.Host {
	if len(h.Clusters) > 0 {
		return h
	}
	out := *h
	for _, e := range es {
		out.Clusters = append(out.Clusters, recordCluster(e.Cluster))
	}
	return &out
}

func recordCluster(c topology.Cluster) measure.Cluster {
	return measure.Cluster{Name: c.Name, CPUs: c.CPUs, CoreType: c.CoreType, MaxFreqKHz: c.MaxFreqKHz,
		CapacityUnits: c.CapacityUnits, L2KiBPerCore: c.L2KiBPerCore, SharedCacheKiB: c.SharedCacheKiB,
		SMTWays: c.SMTWays, CoreCPUs: c.CoreCPUs, SMTCPUs: c.SMTCPUs, Package: c.Package}
}

// RecordedEngines are the engines a calibration's measurements record
// (measure.Host.Clusters): those its prior was built from (Prior), so
// that a refit of its file starts where it did. ok is false when no
// record names its clusters (a file written before blsim recorded them,
// or another program's runs); an error names the first record whose
// clusters differ from the first's (two machines' files in one).
func RecordedEngines(ms []measure.Measurement) (es []Engine, ok bool, err error) {
	var first *measure.Measurement
	for i := range ms {
		m := &ms[i]
		if m.Host == nil || len(m.Host.Clusters) == 0 {
			continue
		}
		if first == nil {
			first = m
			continue
		}
		if !reflect.DeepEqual(m.Host.Clusters, first.Host.Clusters) {
			return nil, false, fmt.Errorf("record %s: its clusters (%s) differ from record %s's (%s): the file holds runs of two machines",
				m.ID, clusterList(m.Host.Clusters), first.ID, clusterList(first.Host.Clusters))
		}
	}
	if first == nil {
		return nil, false, nil
	}
	var cs []topology.Cluster
	for _, c := range first.Host.Clusters {
		cs = append(cs, topology.Cluster{Name: c.Name, CPUs: c.CPUs, CoreType: c.CoreType, MaxFreqKHz: c.MaxFreqKHz,
			CapacityUnits: c.CapacityUnits, L2KiBPerCore: c.L2KiBPerCore, SharedCacheKiB: c.SharedCacheKiB,
			SMTWays: c.SMTWays, CoreCPUs: c.CoreCPUs, SMTCPUs: c.SMTCPUs, Package: c.Package})
	}
	return NewEngines(cs), true, nil
}

// clusterList is "big=0-1 little=2-3".
func clusterList(cs []measure.Cluster) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Name+"="+topology.FormatCPUList(c.CPUs))
	}
	return strings.Join(parts, " ")
}

// EnginesLine is "big=0-1 little=2-3": the engines' clusters, as
// --cluster names them (and as the records keep them: clusterList).
func EnginesLine(es []Engine) string {
	return clusterList(withClusters(&measure.Host{}, es).Clusters)
}

// RecordedWorkload is the workload a calibration's dispatcher runs ran
// (their workload_yaml), the one Prior was given: of a workload and its
// f32 variant (StreamWorkload), the workload. nil when no dispatcher run
// records one; an error when they ran two others.
func RecordedWorkload(ms []measure.Measurement) (*model.Workload, error) {
	yamls := map[string]string{} // name -> yaml
	var names []string
	for i := range ms {
		m := &ms[i]
		if m.Kind != measure.Dispatcher || m.WorkloadYAML == "" {
			continue
		}
		if _, seen := yamls[m.Workload]; !seen {
			names = append(names, m.Workload)
		}
		yamls[m.Workload] = m.WorkloadYAML
	}
	var main []string
	for _, n := range names {
		if _, variant := yamls[strings.TrimSuffix(n, "-f32")]; !(variant && strings.HasSuffix(n, "-f32")) {
			main = append(main, n)
		}
	}
	switch len(main) {
	case 0:
		return nil, nil
	case 1:
		w, err := model.ParseWorkload([]byte(yamls[main[0]]), "the workload_yaml of "+main[0]+"'s runs")
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	return nil, fmt.Errorf("the dispatcher runs ran %d workloads (%s), not one and its f32 variant", len(main), strings.Join(main, ", "))
}
