package plots

// KindsHelp describes each kind of figure blsim plot draws, for its help:
// what it shows and which flags it takes.
const KindsHelp = `split:    prompt throughput against the second engine's share, 0 to 0.5,
          for token and expert splits, with native, the balance points,
          each mode's best split and the measured points of --measurements
          at the same threads and poll (default for the rk3588 preset: the
          seed's figures); without --workload, the curve is of the workload
          the measurements ran.
timeline: ubatch 0 of one plan as a Gantt chart per engine over DRAM
          utilisation: the requested split (--frac) of the best split's mode
          (--split), or the best split with --frac auto; --layers limits it
          to the first layers.
parity:   predicted against measured t/s for every throughput measurement in
          --measurements (default for the rk3588 preset: the seed's figures),
          with y = x, a ±5% band, error bars and labels; --log for log axes.
heatmap:  the best split's gain over native on a grid of what-if SoCs:
          --x-param (default dram: sustained GB/s, with dram.peak_gb_s and
          every cluster cap, bandwidth_max_gb_s, scaled with it) by
          --y-param (default compute-ratio: little/big per-core matmul
          rate), each 0.5x..3x the studied value, with the parity contour;
          the ring is the prediction's best split. Either may be a SoC
          parameter path (engines.big.clock_ghz).
          --engines big,npu (more than two engines, or an accelerator):
          each cell is the best gain sim.BestN finds over those engines, on
          an 8x6 grid; with an accelerator x defaults to accel-tops (its
          effective MUL_MAT_ID TOPS, 1/32x..4x) and y to its submit latency
          (engines.npu.submit_us, 1/4x..256x), both on log axes.
roofline: each engine's compute and bandwidth roofs, with the ops of one
          ubatch (of the plan a timeline draws) placed by arithmetic
          intensity and simulated rate.
threads:  stock llama.cpp's one thread pool: pp and tg (--gen, default 128)
          t/s against -t, a line per set of clusters (the first, both, the
          second), the split dispatcher's best plan dashed, and each phase's
          recommended -t ringed (blsim predict --threads-sweep prints it).`
