// Package presets holds the SoC profiles, workloads and model configs that
// ship with blsim, embedded in the binary. The same YAML files live under
// presets/socs, presets/workloads and presets/models for users to copy and
// edit. A model preset is a public config.json's keys with their source
// (package hfconfig), from which blsim workloads new builds a workload for
// any quantization scheme.
package presets
