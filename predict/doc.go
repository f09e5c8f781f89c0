// Package predict answers blsim's question for one request: on this SoC,
// with this workload, does splitting llama.cpp's routed-expert ops over
// more engines pay, at which shares, by how much and how surely?
//
// Run takes a Request (SoC, workload, engines and their threads, split
// modes, the requested shares or none, poll, interval draws) and returns
// one Prediction: native on the first engine; per split mode the requested
// split, the best one and the split dispatcher alone, each with its t/s,
// gain over native, 90% interval over the SoC's uncertainty and Verdict;
// the best plan as a model.Plan to run; the balance points, the second
// engine's marginal compute and the why breakdown; and warnings for the
// SoC values that cannot matter. blsim predict's table and JSON, blsim
// report's tables and text and every figure of a report are views of that
// one value, so they cannot disagree. WhatIfOf grids what-if SoCs around a
// prediction (the heatmap); SplitPoints and ParityPoints place
// measurements beside it.
//
// The JSON document of a Prediction carries "schema":
// "blsim/prediction/v1" (Schema). Abridged, for blsim predict:
//
//	{
//	  "schema": "blsim/prediction/v1",
//	  "soc": "rk3588", "workload": "qwen3.5-35b-a3b",
//	  "prompt": 512, "ubatch": 512, "test": "pp512",
//	  "engines": ["big", "little"], "kinds": ["cpu", "cpu"],
//	  "threads": [4, 4], "poll": 50, "method": "first-order", "draws": 16,
//	  "native": {"tps": 26.26, "wall_s": 19.49,
//	    "bound": {"compute": 0.861, "dram": 0.131, "engine_cap": 0.008, "handoff": 0.0003},
//	    "dram_util_mean": 0.195, "dram_util_peak": 0.962,
//	    "handoff_s": 0.0066, "expert_op_s": 6.24},
//	  "plans": [
//	    {"kind": "requested",
//	     "plan": {"mode": "token", "engines": ["big", "little"],
//	              "fracs": [0.88, 0.12], "threads": [4, 4], "poll": 50},
//	     "tps": 26.28, "engine_s": [6.07, 4.98], "...": "as native",
//	     "gain_pct": 0.05,
//	     "interval": {"lo_pct": -0.64, "hi_pct": 0.57,
//	                  "method": "first-order", "draws": 16},
//	     "verdict": "PARITY"},
//	    {"kind": "best", "...": "..."},
//	    {"kind": "dispatcher_only", "...": "..."}
//	  ],
//	  "best": {"kind": "best",
//	    "plan": {"mode": "token", "engines": ["big", "little"],
//	             "fracs": [0.8896, 0.1104], "threads": [4, 4], "poll": 50},
//	    "gain_pct": 0.68, "...": "as the plans"},
//	  "balances": [{"mode": "token", "frac": 0.1456},
//	               {"mode": "expert", "frac": 0.1622}],
//	  "marginal_ratio": 0.166,
//	  "why": {"dispatcher_only_gain_pct": 0.025, "work_gain_pct": 0.651},
//	  "warnings": [{"path": "dram.peak_gb_s", "text": "..."}]
//	}
//
// "method" is how the intervals were made (sim.IntervalMethod): by
// default "first-order", each of the SoC's uncertain parameters at ±σ
// ("draws": two runs per parameter, 16 here); with Request.Draws N,
// "monte-carlo" over N draws. Shares are exact in the document; tables
// print them to three places.
// TestDocJSONExample checks every value above against Run's, to the
// digits shown, so the example cannot go stale.
// Errors from Run name the request field at fault (FieldError), never a
// command-line flag.
package predict
