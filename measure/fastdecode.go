package measure

import (
	"reflect"

	"github.com/blsim/blsim/model"
)

// fastdecode.go: the records of a measurements file decoded field by
// field, without reflection: encoding/json took three quarters of the
// time of reading a file of 64 MB (issue 31). Each function reads one
// struct's fields by their JSON names; a key it does not spell exactly
// is left to encoding/json when encoding/json could match it, and makes
// the line invalid when it could not (DisallowUnknownFields). A field
// added to a struct below and not here is such a key: its lines go
// through encoding/json, slower but the same (TestFastDecodeEveryField).

// The JSON names of each struct's fields, for scanner.unknown.
var (
	measurementNames  = jsonNames(reflect.TypeFor[Measurement]())
	planNames         = jsonNames(reflect.TypeFor[model.Plan]())
	runNames          = jsonNames(reflect.TypeFor[Run]())
	hostNames         = jsonNames(reflect.TypeFor[Host]())
	clusterNames      = jsonNames(reflect.TypeFor[Cluster]())
	interferenceNames = jsonNames(reflect.TypeFor[Interference]())
	cpuLoadNames      = jsonNames(reflect.TypeFor[CPULoad]())
	coreSetNames      = jsonNames(reflect.TypeFor[model.CoreSet]())
)

// fastDecode decodes one line (without surrounding space) into m, with
// the scanner's verdict on it.
func (s *scanner) fastDecode(line []byte, m *Measurement) verdict {
	s.b, s.i, s.v = line, 0, decoded
	s.measurement(m)
	s.end()
	return s.v
}

func (s *scanner) measurement(m *Measurement) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "schema":
			s.once(&seen, 0)
			m.Schema = s.name()
		case "id":
			s.once(&seen, 1)
			m.ID = s.str()
		case "kind":
			s.once(&seen, 2)
			m.Kind = s.name()
		case "soc":
			s.once(&seen, 3)
			m.SoC = s.name()
		case "workload":
			s.once(&seen, 4)
			m.Workload = s.name()
		case "workload_yaml":
			s.once(&seen, 5)
			m.WorkloadYAML = s.name()
		case "plan":
			s.once(&seen, 6)
			if s.isObject() {
				m.Plan = &model.Plan{}
				s.plan(m.Plan)
			}
		case "run":
			s.once(&seen, 7)
			if s.isObject() {
				m.Run = &Run{}
				s.run(m.Run)
			}
		case "param":
			s.once(&seen, 8)
			m.Param = s.name()
		case "engine":
			s.once(&seen, 9)
			m.Engine = s.name()
		case "knobs":
			s.once(&seen, 10)
			m.Knobs = s.strMap()
		case "unit":
			s.once(&seen, 11)
			m.Unit = s.name()
		case "samples":
			s.once(&seen, 12)
			m.Samples = s.floats()
		case "median":
			s.once(&seen, 13)
			m.Median = s.float()
		case "cv":
			s.once(&seen, 14)
			m.CV = s.float()
		case "host":
			s.once(&seen, 15)
			if s.isObject() {
				m.Host = &Host{}
				s.host(m.Host)
			}
		case "time":
			s.once(&seen, 16)
			m.Time = s.str()
		case "status":
			s.once(&seen, 17)
			m.Status = s.name()
		case "error":
			s.once(&seen, 18)
			m.Error = s.str()
		case "stdout":
			s.once(&seen, 19)
			m.Stdout = s.str()
		case "stderr":
			s.once(&seen, 20)
			m.Stderr = s.str()
		case "exit_code":
			s.once(&seen, 21)
			m.ExitCode = s.int()
		case "interference":
			s.once(&seen, 22)
			if s.isObject() {
				m.Interference = &Interference{}
				s.interference(m.Interference)
			}
		default:
			s.unknown(k, measurementNames)
		}
	}
}

// isObject reports whether the next value is an object, failing the
// line when it is not (a null is encoding/json's to decode).
func (s *scanner) isObject() bool {
	if c := s.start(); c != '{' {
		s.other(c)
		return false
	}
	return true
}

func (s *scanner) plan(p *model.Plan) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "mode":
			s.once(&seen, 0)
			p.Mode = model.Mode(s.name())
		case "engines":
			s.once(&seen, 1)
			p.Engines = s.names()
		case "fracs":
			s.once(&seen, 2)
			p.Fracs = s.floats()
		case "threads":
			s.once(&seen, 3)
			p.Threads = s.ints()
		case "poll":
			s.once(&seen, 4)
			p.Poll = s.int()
		case "busy_cores":
			s.once(&seen, 5)
			p.BusyCores = s.ints()
		case "smt":
			s.once(&seen, 6)
			p.SMT = s.ints()
		case "allowed":
			s.once(&seen, 7)
			p.Allowed = []model.CoreSet{}
			for ok := s.list(); ok; ok = s.next() {
				var c model.CoreSet
				s.coreSet(&c)
				p.Allowed = append(p.Allowed, c)
			}
		default:
			s.unknown(k, planNames)
		}
	}
}

func (s *scanner) coreSet(c *model.CoreSet) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "cores":
			s.once(&seen, 0)
			c.Cores = s.int()
		case "ways":
			s.once(&seen, 1)
			c.Ways = s.int()
		default:
			s.unknown(k, coreSetNames)
		}
	}
}

func (s *scanner) run(r *Run) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "prompt_tokens":
			s.once(&seen, 0)
			r.PromptTokens = s.int()
		case "ubatch":
			s.once(&seen, 1)
			r.Ubatch = s.int()
		case "depth":
			s.once(&seen, 2)
			r.Depth = s.int()
		case "gen_tokens":
			s.once(&seen, 3)
			r.GenTokens = s.int()
		case "flash_attn":
			s.once(&seen, 4)
			r.FlashAttn = s.bool()
		default:
			s.unknown(k, runNames)
		}
	}
}

func (s *scanner) host(h *Host) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "name":
			s.once(&seen, 0)
			h.Name = s.name()
		case "kernel":
			s.once(&seen, 1)
			h.Kernel = s.name()
		case "cpu":
			s.once(&seen, 2)
			h.CPU = s.name()
		case "arch":
			s.once(&seen, 3)
			h.Arch = s.name()
		case "governors":
			s.once(&seen, 4)
			h.Governors = s.strMap()
		case "clusters":
			s.once(&seen, 5)
			h.Clusters = []Cluster{}
			for ok := s.list(); ok; ok = s.next() {
				var c Cluster
				s.cluster(&c)
				h.Clusters = append(h.Clusters, c)
			}
		default:
			s.unknown(k, hostNames)
		}
	}
}

func (s *scanner) cluster(c *Cluster) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "name":
			s.once(&seen, 0)
			c.Name = s.name()
		case "cpus":
			s.once(&seen, 1)
			c.CPUs = s.ints()
		case "core_type":
			s.once(&seen, 2)
			c.CoreType = s.name()
		case "max_freq_khz":
			s.once(&seen, 3)
			c.MaxFreqKHz = s.int()
		case "capacity_units":
			s.once(&seen, 4)
			c.CapacityUnits = s.int()
		case "l2_kib_per_core":
			s.once(&seen, 5)
			c.L2KiBPerCore = s.int()
		case "shared_cache_kib":
			s.once(&seen, 6)
			c.SharedCacheKiB = s.int()
		case "smt_ways":
			s.once(&seen, 7)
			c.SMTWays = s.int()
		case "core_cpus":
			s.once(&seen, 8)
			c.CoreCPUs = s.ints()
		case "smt_cpus":
			s.once(&seen, 9)
			c.SMTCPUs = s.ints()
		case "package":
			s.once(&seen, 10)
			c.Package = s.int()
		default:
			s.unknown(k, clusterNames)
		}
	}
}

func (s *scanner) interference(in *Interference) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "wall_s":
			s.once(&seen, 0)
			in.WallS = s.float()
		case "cpus":
			s.once(&seen, 1)
			in.CPUs = []CPULoad{}
			for ok := s.list(); ok; ok = s.next() {
				var c CPULoad
				s.cpuLoad(&c)
				in.CPUs = append(in.CPUs, c)
			}
		case "pressure_pct":
			s.once(&seen, 2)
			if c := s.start(); c == 'n' {
				s.other(c)
			} else {
				f := s.float()
				in.PressurePct = &f
			}
		case "used":
			s.once(&seen, 3)
			in.Used = s.ints()
		case "reruns":
			s.once(&seen, 4)
			in.Reruns = s.int()
		case "disturbed":
			s.once(&seen, 5)
			in.Disturbed = s.bool()
		default:
			s.unknown(k, interferenceNames)
		}
	}
}

func (s *scanner) cpuLoad(c *CPULoad) {
	var seen uint32
	for k, ok := s.begin(); ok; k, ok = s.more() {
		switch string(k) {
		case "cpu":
			s.once(&seen, 0)
			c.CPU = s.int()
		case "own_pct":
			s.once(&seen, 1)
			c.OwnPct = s.float()
		case "other_pct":
			s.once(&seen, 2)
			c.OtherPct = s.float()
		case "steal_pct":
			s.once(&seen, 3)
			c.StealPct = s.float()
		default:
			s.unknown(k, cpuLoadNames)
		}
	}
}
