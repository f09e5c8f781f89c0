// Package presets holds the SoC profiles and workloads that ship with
// blsim, embedded in the binary. The same YAML files live under presets/socs
// and presets/workloads for users to copy and edit.
package presets
